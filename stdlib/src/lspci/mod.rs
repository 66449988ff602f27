//! `lspci`: the PCI functions of the adapters (physical and virtual), with their class, model
//! and revision.
//!
//! Reads `lspci`, `lspci -D` and `lspci -nn` device lines, usually filtered with
//! `| grep Mellanox`. The grammar is `lspci.pest`.

mod parse;
mod types;

pub use types::{Lspci, PciDevice};

/// Parses `lspci` output.
pub fn parse(text: &str) -> Result<Lspci, crate::ParseError> {
    parse::parse(text)
}
