//! `mst status`: the MST devices of the ConnectX adapters and how they are reached.
//!
//! Reads the Linux default layout (`MST modules:` and `MST devices:` with device files, access
//! method, PCI address and chip revision) and the `PCI devices:` table of `mst status -v`,
//! `-vv` and of ESXi (`DEVICE_TYPE MST PCI RDMA NET NUMA`). See `docs/parsers.md`.

pub mod builtins;
mod command;
mod parse;
mod reads;
mod sim;
mod types;

pub(crate) use sim::Mst;

pub use types::{MstDevice, MstModule, MstStatus, PciDevice};

/// Parses `mst status [-v|-vv]` output, Linux or ESXi.
pub fn parse_status(text: &str) -> Result<MstStatus, crate::ParseError> {
    parse::parse_status(text)
}

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`mst::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "mst";
