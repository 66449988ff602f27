//! `mst status`: the MST devices of the ConnectX adapters and how they are reached.
//!
//! Reads the Linux default layout (`MST modules:` and `MST devices:` with device files, access
//! method, PCI address and chip revision) and the `PCI devices:` table of `mst status -v`,
//! `-vv` and of ESXi (`DEVICE_TYPE MST PCI RDMA NET NUMA`). See `docs/parsers.md`.

mod parse;
mod types;

pub use types::{MstDevice, MstModule, MstStatus, PciDevice};

/// Parses `mst status [-v|-vv]` output, Linux or ESXi.
pub fn parse_status(text: &str) -> Result<MstStatus, crate::ParseError> {
    parse::parse_status(text)
}

/// Registers the `mst::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
