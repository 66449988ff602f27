//! The simulated ESXi host losing at boot what esxcli staged for it, as a stateless host does:
//! "When a host is configured as stateless, it does not preserve its state across reboots
//! [...] Each time the ESXi boots, it is reinstalled from a predefined image", and settings
//! "such as network configuration and kernel module parameters" survive only through a host
//! profile (Dell, "Stateless ESXi overview",
//! <https://docs.delltechnologies.com/bundle/VXF_ESX_TN/page/GUID-2E9180DF-EAD1-40E8-8536-D82AF5E7FD4B.html>).
//!
//! `fault_ignore_staged_vibs=NAME[,NAME...]`: these VIBs, installed since the last boot, are
//! not in the image the host boots. `fault_ignore_staged_module_parameters=MODULE[,MODULE...]`:
//! these modules' parameters are back to what they were at the last boot.

use cairn_runtime::sim::SimContext;

use super::sim_state::{Booted, EsxcliState, SimVib};
use crate::machine::staged_faults;

/// VIBs installed since the last boot that the next one leaves out.
pub(super) const FAULT_VIBS: &str = "fault_ignore_staged_vibs";
/// Modules whose parameters set since the last boot the next one loses.
pub(super) const FAULT_MODULE_PARAMETERS: &str = "fault_ignore_staged_module_parameters";

/// Whether `key` is one of these faults.
pub(super) fn owns(key: &str) -> bool {
    key == FAULT_VIBS || key == FAULT_MODULE_PARAMETERS
}

/// At a boot (and when the host is made): drops what the faults name, then remembers what the
/// host booted with.
pub(super) fn at_boot(host: &SimContext<'_>, state: &mut EsxcliState) {
    if let Some(booted) = &state.booted {
        let vibs = staged_faults::names(host, FAULT_VIBS);
        let before = booted.vibs.clone();
        let mut image: Vec<SimVib> = state
            .vibs
            .iter()
            .filter(|vib| !vibs.contains(&vib.name) || before.contains(vib))
            .cloned()
            .collect();
        // A VIB that replaced an older one boots as the older one.
        for old in &before {
            if vibs.contains(&old.name) && !image.iter().any(|v| v.name == old.name) {
                image.push(old.clone());
            }
        }
        state.vibs = image;
        for module in staged_faults::names(host, FAULT_MODULE_PARAMETERS) {
            match booted.module_parameters.get(&module) {
                Some(params) => {
                    state.module_parameters.insert(module, params.clone());
                }
                None => {
                    state.module_parameters.remove(&module);
                }
            }
        }
    }
    state.booted = Some(Booted {
        vibs: state.vibs.clone(),
        module_parameters: state.module_parameters.clone(),
    });
}
