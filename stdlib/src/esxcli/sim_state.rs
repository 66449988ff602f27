//! What the simulated `esxcli` keeps in its state slot: the image's VIBs, module parameters,
//! advanced options, passthrough, maintenance mode and what the host last booted with. The
//! tool (`sim.rs`) and the two rules it applies, maintenance mode (`sim_maintenance.rs`) and
//! the boot faults (`sim_boot_faults.rs`), all read and change it, so it sits below the three.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One VIB of the image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SimVib {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) vendor: String,
    pub(crate) acceptance_level: String,
    pub(crate) install_date: String,
}

impl SimVib {
    pub(super) fn id(&self) -> String {
        format!("{}_bootbank_{}_{}", self.vendor, self.name, self.version)
    }
}

/// An advanced option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Advanced {
    pub(super) int: Option<i64>,
    pub(super) default_int: Option<i64>,
    pub(super) min: i64,
    pub(super) max: i64,
    pub(super) string: Option<String>,
    pub(super) default_string: Option<String>,
    pub(super) description: String,
}

/// What `esxcli` remembers.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct EsxcliState {
    /// The image's VIBs, as `vib list` shows them (installs show at once).
    pub(crate) vibs: Vec<SimVib>,
    /// Module parameters by module, as `-p` strings set them (`name=value ...`).
    pub(crate) module_parameters: BTreeMap<String, String>,
    pub(super) advanced: BTreeMap<String, Advanced>,
    /// Passthrough by full PCI address.
    pub(crate) passthru: BTreeMap<String, bool>,
    /// Read by vCenter (`machine::host_vms::HostMaintenance`): no VM powers on meanwhile.
    pub(crate) maintenance: bool,
    /// The image and module parameters the host last booted with, for the faults that lose
    /// what was staged since (`sim_boot_faults.rs`).
    #[serde(default)]
    pub(crate) booted: Option<Booted>,
}

/// What the host last booted with (`sim_boot_faults.rs` drops from the next boot what its
/// faults name and was staged since).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Booted {
    pub(super) vibs: Vec<SimVib>,
    pub(super) module_parameters: BTreeMap<String, String>,
}

/// An esxcli boolean value (`-e true`, `--enable 0`), as the `set` commands read it.
pub(super) fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}
