//! What a simulated ESXi host and the simulated vCenter know of each other: the VMs registered
//! on a host (vCenter's `vms=NAME@HOST`) with their power state and DirectPath I/O devices, and
//! whether a host is in maintenance mode.
//!
//! Two rules of vSphere need both sides. Entering maintenance mode waits until every VM running
//! on the host has been suspended or migrated (vSphere CLI Concepts and Examples 6.7, "Enter
//! and Exit Maintenance Mode with ESXCLI": "After all virtual machines on the host have been
//! suspended or migrated, the host enters maintenance mode"); the simulator has no DRS, and a
//! VM with DirectPath I/O could not be migrated or suspended anyway, so only powering it off
//! lets the host in. And a VM cannot be powered on while its host is in maintenance mode (same
//! page: "You cannot deploy or power on a virtual machine on hosts in maintenance mode").
//!
//! Like the passthrough contract (`passthrough.rs`), each side reads the other's state
//! read-only, through these views; a round-trip test beside each owner keeps them in step.

use std::collections::BTreeMap;

use cairn_runtime::sim::SimContext;
use serde::Deserialize;

use crate::machine::guest::peer_tools;
use crate::machine::passthrough::{ESXCLI_SLOT, VCENTER_SLOT};

/// The ESXi host option naming the management host whose vCenter holds its VMs.
pub(crate) const VCENTER_OPTION: &str = "vcenter";
/// Its default, as for the guests.
pub(crate) const DEFAULT_VCENTER: &str = "vcenter";

/// What an ESXi host reads of vCenter: each VM's host, power state and devices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct VcenterVms {
    #[serde(default)]
    pub(crate) vms: BTreeMap<String, RegisteredVm>,
}

/// One VM as its host sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct RegisteredVm {
    /// The ESXi host it is registered on (`vms=NAME@HOST`); none: the lab did not say.
    #[serde(default)]
    pub(crate) host: Option<String>,
    #[serde(default)]
    pub(crate) powered_on: bool,
    /// The devices it runs with: DirectPath I/O when not empty.
    #[serde(default)]
    pub(crate) booted_devices: Vec<String>,
    /// How many power-on tasks vCenter ran for it: its guest boots once per new one.
    #[serde(default)]
    pub(crate) power_ons: u64,
}

/// A VM that keeps its host out of maintenance mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunningVm {
    pub(crate) name: String,
    /// It has DirectPath I/O devices: it could not be migrated even with DRS.
    pub(crate) passthrough: bool,
}

/// The powered-on VMs registered on this host, by name. Empty when vCenter is unknown or down.
pub(crate) fn running_vms(host: &SimContext<'_>) -> Vec<RunningVm> {
    let vcenter = host.option(VCENTER_OPTION).unwrap_or(DEFAULT_VCENTER);
    let Some(tools) = peer_tools(host, vcenter) else {
        return Vec::new();
    };
    let view: VcenterVms = tools
        .get(VCENTER_SLOT)
        .cloned()
        .and_then(|slot| serde_json::from_value(slot).ok())
        .unwrap_or_default();
    view.vms
        .into_iter()
        .filter(|(_, vm)| vm.powered_on && vm.host.as_deref() == Some(host.host_name()))
        .map(|(name, vm)| RunningVm {
            name,
            passthrough: !vm.booted_devices.is_empty(),
        })
        .collect()
}

/// Why a guest `sim:rhel8?esxi=HOST` does not answer, if it does not: its VM (`vm`, by default
/// the guest's name) is powered off in its vCenter (`vcenter`), so its operating system is not
/// running, until the VM is powered on again. A guest with no `esxi`, a vCenter not reached yet
/// or down, or a VM vCenter does not have, answers as before.
pub(crate) fn guest_down(ctx: &SimContext<'_>) -> Option<String> {
    let record = vm_record(ctx)?;
    let vcenter = ctx.option(VCENTER_OPTION).unwrap_or(DEFAULT_VCENTER);
    let vm = ctx.option("vm").unwrap_or(ctx.host_name());
    (!record.powered_on).then(|| format!("its VM `{vm}` is powered off in vCenter (`{vcenter}`)"))
}

/// Whether a guest boots now because its VM was powered on since it last booted: the power-on
/// starts its OS from cold, so the guest is down for its reboot time (`reboot_secs`, 120 s for a
/// VM in docs/simulator.md) and then answers with a new boot id, as after a reboot. The guest
/// marks each power-on it booted from, so it boots once per power-on; the power-ons of a VM
/// that runs from the start (`vms=`) are 0, and such a guest answers at once.
pub(crate) fn guest_boots(ctx: &mut SimContext<'_>) -> bool {
    let Some(power_ons) = vm_record(ctx).map(|vm| vm.power_ons) else {
        return false;
    };
    let mark = format!("vm_power_on:{power_ons}");
    if power_ons == 0 || ctx.is_marked(&mark) {
        return false;
    }
    ctx.mark(mark);
    true
}

/// The guest's VM as its vCenter keeps it, when the guest is a VM (`esxi`) and vCenter holds it.
fn vm_record(ctx: &SimContext<'_>) -> Option<RegisteredVm> {
    ctx.option("esxi")?;
    let vcenter = ctx.option(VCENTER_OPTION).unwrap_or(DEFAULT_VCENTER);
    let vm = ctx.option("vm").unwrap_or(ctx.host_name());
    let view: VcenterVms = peer_tools(ctx, vcenter)?
        .get(VCENTER_SLOT)
        .cloned()
        .and_then(|slot| serde_json::from_value(slot).ok())?;
    view.vms.get(vm).cloned()
}

/// What vCenter reads of an ESXi host's `esxcli` state: whether it is in maintenance mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct HostMaintenance {
    #[serde(default)]
    pub(crate) maintenance: bool,
}

/// Whether the ESXi host `esxi` is in maintenance mode (`false` when unknown or down).
pub(crate) fn in_maintenance(ctx: &SimContext<'_>, esxi: &str) -> bool {
    peer_tools(ctx, esxi)
        .and_then(|tools| tools.get(ESXCLI_SLOT).cloned())
        .and_then(|slot| serde_json::from_value::<HostMaintenance>(slot).ok())
        .is_some_and(|h| h.maintenance)
}
