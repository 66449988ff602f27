//! Reading `vhpc_toolkit view --vm VM`: the VM's passthrough devices, latency sensitivity and
//! reservations, one `Label: value` per line under `VM: NAME`.
//!
//! The real tool's `view` layout was not available to us; this is the record our simulated
//! vCenter prints (see `sim.rs`), kept small so a real capture can replace it in one place.

use serde::{Deserialize, Serialize};

/// A VM as `view` shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct VmView {
    /// The VM's name.
    pub(crate) vm: String,
    /// `poweredOn` or `poweredOff`.
    pub(crate) power_state: Option<String>,
    /// PCI passthrough devices (`0000:3b:00.0`), lower case.
    pub(crate) passthrough_devices: Vec<String>,
    /// `high` or `normal`.
    pub(crate) latency_sensitivity: Option<String>,
    /// Whether all CPU is reserved.
    pub(crate) cpu_reservation: bool,
    /// Whether all memory is reserved.
    pub(crate) memory_reservation: bool,
}

/// Reads a `view` record; the error names the line that is not one.
pub(crate) fn parse(text: &str) -> Result<VmView, String> {
    let mut view = VmView::default();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((label, value)) = line.split_once(':') else {
            return Err(format!(
                "line {}: `{line}` is not `Label: value`",
                number + 1
            ));
        };
        let value = value.trim();
        let yes = |v: &str| matches!(v.to_ascii_lowercase().as_str(), "yes" | "true" | "full");
        match label.trim() {
            "VM" => view.vm = value.to_owned(),
            "Power state" => view.power_state = Some(value.to_owned()),
            "Passthrough devices" => {
                view.passthrough_devices = value
                    .split(',')
                    .map(|d| d.trim().to_ascii_lowercase())
                    .filter(|d| !d.is_empty() && d != "none")
                    .collect();
            }
            "Latency sensitivity" => view.latency_sensitivity = Some(value.to_ascii_lowercase()),
            "CPU reservation" => view.cpu_reservation = yes(value),
            "Memory reservation" => view.memory_reservation = yes(value),
            _ => {}
        }
    }
    if view.vm.is_empty() {
        return Err("no `VM:` line".into());
    }
    Ok(view)
}
