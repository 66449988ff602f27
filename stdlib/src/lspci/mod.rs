//! `lspci` (a parser only): the PCI functions, from `lspci` and `lspci -vv`/`-vvv`. The parsers
//! are layer 1's (`grammar/lspci/`: the `gpu` namespace reads them too); this namespace is their
//! row in the table of tools.

pub use crate::grammar::lspci::{
    BridgeBuses, Lspci, LspciVerbose, PciDevice, PciFunction, PcieLink, Vpd, VpdField, VpdPart,
    mellanox_part_numbers, parse, parse_verbose,
};
