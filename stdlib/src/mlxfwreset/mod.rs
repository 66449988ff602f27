//! `mlxfwreset` (MFT; `mstfwreset` in mstflint): loading a staged firmware image or NVCONFIG
//! change without rebooting the host, at a reset level the device supports.
//!
//! [`parse_query`] reads `mlxfwreset -d DEV query` (the `Reset-levels:`, `Reset-types`,
//! `Reset-sync` sections, each row `-Supported`/`-Not Supported`, `(default)`) and
//! [`parse_status`] reads `mlxfwreset -d DEV status` (the pending image and NVCONFIG
//! parameters); [`parse_reset`] reads the `reset` transcript (`reset.rs`). Sources: NVIDIA MFT documentation, "mlxfwreset – Loading Firmware on 5th
//! Generation Devices Tool" (MFT 4.22 to 4.33: levels 0 live patch, 3 driver restart and PCI
//! reset, 4 warm reboot; "Supported OSs: FreeBSD, Linux, Windows"), the mstfwreset man page
//! (mstflint 4.13 to 4.33), and mstflint's `small_utils/mstfwreset.py` with
//! `small_utils/mlxfwresetlib/cmd_reg_mfrl.py` for the exact output and error texts. See
//! `docs/parsers.md`.

pub mod builtins;
mod command;
mod parse;
mod reads;
mod reset;
mod reset_types;
mod sim;
mod types;

pub use reset_types::{ResetRun, ResetStep};
pub(crate) use sim::MlxfwresetSim;
pub use types::{PendingParam, ResetOption, ResetQuery, ResetStatus};

/// Parses `mlxfwreset -d DEV query` output.
pub fn parse_query(text: &str) -> Result<ResetQuery, crate::ParseError> {
    parse::parse_query(text)
}

/// Parses `mlxfwreset -d DEV reset` output (both wordings of its heading).
pub fn parse_reset(text: &str) -> Result<ResetRun, crate::ParseError> {
    reset::parse_reset(text)
}

/// Parses `mlxfwreset -d DEV status` output.
pub fn parse_status(text: &str) -> Result<ResetStatus, crate::ParseError> {
    parse::parse_status(text)
}

/// The namespace the builtins are registered under, and so the first half of the name each
/// journals its actions under (`mlxfwreset::name`).
pub(crate) const NAMESPACE: &str = "mlxfwreset";
