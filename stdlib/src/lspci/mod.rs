//! `lspci`: the PCI functions of the adapters (physical and virtual), with their class, model
//! and revision.
//!
//! Reads `lspci`, `lspci -D` and `lspci -nn` device lines, usually filtered with
//! `| grep Mellanox`. The grammar is `lspci.pest`. `vpd.rs` reads the part numbers of
//! `lspci -vv`'s Vital Product Data.

mod parse;
mod types;
mod vpd;

pub use types::{Lspci, PciDevice};
pub use vpd::{VpdPart, parse_vpd};

/// Parses `lspci` output.
pub fn parse(text: &str) -> Result<Lspci, crate::ParseError> {
    parse::parse(text)
}
