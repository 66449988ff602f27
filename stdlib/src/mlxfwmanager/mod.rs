//! `mlxfwmanager` and `mlxup`: the firmware versions of the ConnectX adapters, and their update.
//!
//! [`parse()`] reads the query (`mlxfwmanager [-d DEV] [--query]`, `mlxup`), one block per
//! device with its PSID, addresses and `Versions: Current Available` table, and the online
//! update (`mlxfwmanager --online -u`, `mlxup`): the devices needing an update, the steps of
//! each update, the restart notice and the log file. See `docs/parsers.md`.

mod parse;
mod types;

pub use types::{
    ComponentVersion, DeviceUpdate, FwDevice, Mlxfwmanager, PortAddress, ReleaseNote, UpdateStep,
};

/// Parses `mlxfwmanager` or `mlxup` output.
pub fn parse(text: &str) -> Result<Mlxfwmanager, crate::ParseError> {
    parse::parse(text)
}

/// Registers the `mlxfwmanager::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
