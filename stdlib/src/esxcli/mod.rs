//! `esxcli`: the ESXi host's VIBs, driver module parameters, NICs, PCI passthrough and
//! advanced settings.
//!
//! One submodule per command. Tables (`vib list`, `module parameters list`, `nic list`,
//! `pcipassthru list`) are split at the columns of their dashes line, so empty cells and titles
//! with spaces are read right; records (`vib install`, `settings advanced list`) are read field
//! by field. See `docs/parsers.md`.

mod advanced;
pub mod builtins;
mod command;
mod module_parameters;
mod pcipassthru_list;
mod reads;
pub(crate) mod sim;
mod sim_boot_faults;
mod sim_maintenance;
mod sim_state;
mod staged;
mod types;
mod vib_install;
mod vib_list;

// The grammar and the NIC list's parser are layer 1 (`grammar::esxcli`): `mst` reads the list too.
pub use crate::grammar::esxcli::nic_list::Nic;
use crate::grammar::esxcli::{grammar, nic_list};

pub use reads::{VibChange, VibRecord};
pub use types::{AdvancedOption, EsxcliError, ModuleParameter, PciPassthru, Vib, VibInstall};

/// Parses `esxcli software vib list` output, whole or `grep`ped.
///
/// Claims: the `Name Version Vendor Acceptance Level Install Date` title row (and its dashes), or,
/// when `grep` dropped the title, rows of five or six columns apart by two blanks or a tab;
/// anything else is refused.
pub fn parse_vib_list(text: &str) -> Result<Vec<Vib>, crate::ParseError> {
    vib_list::parse(text)
}

/// Parses `esxcli software vib install|update` output: the result record or the error.
///
/// Claims: the `Installation Result` record (`Message:`, `Reboot Required:`, `VIBs Installed:`
/// ...) or esxcli's own error block (`[DependencyError]` and its lines); anything else is
/// refused.
pub fn parse_vib_install(text: &str) -> Result<VibInstall, crate::ParseError> {
    vib_install::parse(text)
}

/// Parses `esxcli system module parameters list -m MODULE` output.
///
/// Claims: the `Name Type Value Description` table (title row, or rows of its shape when
/// `grep`ped); anything else is refused.
pub fn parse_module_parameters(text: &str) -> Result<Vec<ModuleParameter>, crate::ParseError> {
    module_parameters::parse(text)
}

/// Parses `esxcli network nic list` output.
///
/// Claims: the table under its `Name PCI Device Driver Admin Status Link Status ...` title
/// row; anything else is refused.
pub fn parse_nic_list(text: &str) -> Result<Vec<Nic>, crate::ParseError> {
    nic_list::parse(text)
}

/// Parses `esxcli hardware pci pcipassthru list` output.
///
/// Claims: the table under its `Device ID Enabled` title row; anything else is refused.
pub fn parse_pcipassthru_list(text: &str) -> Result<Vec<PciPassthru>, crate::ParseError> {
    pcipassthru_list::parse(text)
}

/// Parses `esxcli system settings advanced list [-o OPTION]` output: one entry per option.
///
/// Claims: option records opening with `Path: /...` and their indented `Type:`, `Int Value:`
/// ... fields; anything else is refused.
pub fn parse_advanced(text: &str) -> Result<Vec<AdvancedOption>, crate::ParseError> {
    advanced::parse(text)
}

pub(crate) use sim::Esxcli;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`esxcli::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "esxcli";
