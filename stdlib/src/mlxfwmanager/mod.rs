//! `mlxfwmanager` and `mlxup`: the firmware versions of the ConnectX adapters, and their update.
//!
//! [`parse()`] reads the query (`mlxfwmanager [-d DEV] [--query]`, `mlxup`), one block per
//! device with its PSID, addresses and `Versions: Current Available` table, and the online
//! update (`mlxfwmanager --online -u`, `mlxup`): the devices needing an update, the steps of
//! each update, the restart notice and the log file. See `docs/parsers.md`.

pub mod builtins;
mod command;
mod reads;
pub use reads::{DeviceFirmware, FirmwareQuery, FirmwareUpdate, PredictedFirmware, Versions};
mod sim;
mod staged;
pub(crate) use sim::MlxfwmanagerTool;

// The grammar is layer 1 (`grammar::mlxfwmanager`): `ofed`'s installers read it too.
pub use crate::grammar::mlxfwmanager::{
    ComponentVersion, DeviceUpdate, FwDevice, Mlxfwmanager, PortAddress, ReleaseNote, UpdateStep,
    parse,
};

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`mlxfwmanager::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "mlxfwmanager";
