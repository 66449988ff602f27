//! `lspci`: the PCI functions of the adapters (physical and virtual), with their class, model
//! and revision; in layer 1 because two namespaces read it (`lspci`, whose row registers the
//! parsers, and `gpu`, which reads the PCIe bridges' ACS).
//!
//! Reads `lspci`, `lspci -D` and `lspci -nn` device lines, usually filtered with
//! `| grep Mellanox` (grammar `lspci.pest`), and `lspci -vv`/`-vvv` blocks (`verbose.rs`: the
//! subsystem, PCIe link capability and status, Vital Product Data, driver in use); `vpd.rs` picks
//! the Mellanox functions' part numbers the fabric manifest compares.

mod parse;
mod types;
mod verbose;
mod verbose_types;
mod vpd;

pub use types::{Lspci, PciDevice};
pub use verbose_types::{BridgeBuses, LspciVerbose, PciFunction, PcieLink, Vpd, VpdField};
pub use vpd::{VpdPart, mellanox_part_numbers};

/// Parses `lspci` output.
pub fn parse(text: &str) -> Result<Lspci, crate::ParseError> {
    parse::parse(text)
}

/// Parses `lspci -vv` / `-vvv` output.
pub fn parse_verbose(text: &str) -> Result<LspciVerbose, crate::ParseError> {
    verbose::parse_verbose(text)
}
