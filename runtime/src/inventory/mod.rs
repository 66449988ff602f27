//! Inventories: hosts, groups, addresses and vars, from TOML.
//!
//! ```toml
//! [vars]
//! mtu = 9000
//!
//! [groups.fabric]
//! children = ["esxi"]
//!
//! [hosts."esx[01-04]"]
//! address = "ssh://root@{name}.lab"
//! groups = ["esxi"]
//!
//! [hosts."node[01-08]"]
//! address = "sim:linux?reboot_secs=2"
//! groups = ["compute"]
//! ```
//!
//! See `docs/inventory.md` for every key, the address forms, ranges, var precedence and errors.
//!
//! Besides the file itself: `--limit` patterns (`pattern.rs`), the helpers a selection takes along
//! (`helpers.rs`), `cairn hosts`' graph (`host_graph.rs`), and the check of each address beyond its
//! syntax that the inventory hands its builder (`address_check.rs`).

mod address;
mod address_check;
mod address_error;
mod group_graph;
mod helpers;
mod host_graph;
mod host_name;
mod host_pattern;
mod host_spec;
#[allow(clippy::module_inception)] // one concept per file: `Inventory` lives in inventory.rs
mod inventory;
mod inventory_builder;
mod inventory_error;
mod pattern;
mod raw_inventory;
mod string_span;
pub(crate) mod suggest;
#[cfg(test)]
mod tests;
mod toml_json;

pub use address::Address;
pub use address_check::{AddressCheck, AddressProblem};
pub use address_error::AddressError;
pub use helpers::helpers;
pub use host_graph::host_graph;
pub use host_spec::HostSpec;
pub use inventory::Inventory;
pub use inventory_error::InventoryError;
pub use pattern::{HostPattern, PatternError};
pub use suggest::closest;
