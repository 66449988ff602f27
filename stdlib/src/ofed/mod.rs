//! `ofed_info`: the installed MLNX_OFED / DOCA-OFED version, and with the full listing, its
//! components and installed packages.
//!
//! Reads `ofed_info -s` (one line, `MLNX_OFED_LINUX-5.4-3.0.3.0:`) and the full `ofed_info`
//! (first line `OFED-internal-26.01-1.0.0:`, then `name:` / source / `commit` entries, then
//! `Installed Packages:`). The grammar is `ofed.pest`. The installer's transcript
//! (`mlnxofedinstall`) is read line by line in `installer.rs`. DOCA-OFED's repo package and
//! install commands are in `doca.rs`.

pub mod builtins;
pub(crate) mod command;
mod doca;
mod installer;
mod installer_types;
pub mod openibd;
mod parse;
mod reads;
pub(crate) mod sim;
mod sim_doca;
mod sim_installer;
mod staged;
mod types;

pub use installer_types::{
    FirmwareOutcome, FirmwareReport, InstallResult, InstalledPackage, NextStep, NotDistributed,
    OfedInstall, PcieLink,
};
pub use reads::{InstalledOfed, OfedChange};
pub use types::{OfedComponent, OfedFlavour, OfedInfo};

/// Parses `ofed_info` or `ofed_info -s` output.
///
/// Claims: a first line naming the OFED flavour and version (`MLNX_OFED_LINUX-5.8-1.0.1.1:`,
/// `OFED-internal-25.10-1.7.1:`), then its component sections; anything else is refused.
pub fn parse_info(text: &str) -> Result<OfedInfo, crate::ParseError> {
    parse::parse_info(text)
}

/// Parses the transcript of `mlnxofedinstall` (MLNX_OFED's installer, or MLNX_EN's `install`):
/// log folder, packages, firmware update, PCIe link report, result and next step.
///
/// Claims: at least one line of the installer's own (`Logs dir:`, `Installing ...`, the
/// firmware block, `Installation passed successfully`, ...); only then are its other lines kept
/// as `other`. Text with none is refused.
pub fn parse_install(text: &str) -> Result<OfedInstall, crate::ParseError> {
    installer::parse_install(text)
}

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`ofed::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "ofed";
