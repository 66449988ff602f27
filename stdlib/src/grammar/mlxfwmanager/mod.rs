//! `mlxfwmanager`'s and `mlxup`'s output (layer 1): two namespaces read it, `mlxfwmanager`'s
//! builtins and `ofed`'s installers, whose firmware step (`mlnx-fw-updater`) runs
//! `mlxfwmanager` and prints its query and update. The parser is registered in
//! `mlxfwmanager`'s row of the table of tools. See `docs/parsers.md`.

mod parse;
mod types;

pub use types::{
    ComponentVersion, DeviceUpdate, FwDevice, Mlxfwmanager, PortAddress, ReleaseNote, UpdateStep,
};

/// Parses `mlxfwmanager` or `mlxup` output.
pub fn parse(text: &str) -> Result<Mlxfwmanager, crate::ParseError> {
    parse::parse(text)
}
