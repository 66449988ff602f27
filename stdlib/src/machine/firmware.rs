//! Firmware activation (layer 1): the firmware image and NV configuration each ConnectX adapter
//! runs, and the resets that make staged ones run without a reboot.
//!
//! `mlxconfig set` and a firmware burn are staged: they take effect at the next boot, or at a
//! firmware reset (`mlxfwreset -d DEV reset --level 3`, which "enables the user to load updated
//! firmware on a NIC/switch without having to reboot the machine": NVIDIA MFT documentation,
//! "mlxfwreset – Loading Firmware on 5th Generation Devices Tool", and mstflint's
//! `small_utils/mstfwreset.py`). The `mlxfwreset` simulator counts the resets of each device in
//! its state slot ([`ResetLog`]); the tools that own the staged state (`mlxconfig`,
//! `mlxfwmanager`) remember the count they last applied and apply the staged values of a
//! device reset since, when they next run. Readers of another tool's state (`mlxfwreset
//! status`, the bare-metal host's ports) read through the views here, which apply a reset
//! their owner has not applied yet, so every printer agrees the moment the reset returns.

use std::collections::BTreeMap;

use cairn_runtime::sim::SimContext;
use serde::{Deserialize, Serialize};

use crate::machine::esxi::Adapter;

/// The `mlxfwreset` simulator's state slot, read as [`ResetLog`].
pub(crate) const RESET_SLOT: &str = "mlxfwreset";
/// The `mlxfwmanager` simulator's state slot, read as [`FirmwareImages`].
pub(crate) const FIRMWARE_SLOT: &str = "mlxfwmanager";
/// The `mlxconfig` simulator's state slot, read as [`NvConfig`].
pub(crate) const NVCONFIG_SLOT: &str = crate::machine::passthrough::MLXCONFIG_SLOT;

/// How many firmware resets each device (by mst name) has had.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ResetLog {
    #[serde(default)]
    pub(crate) devices: BTreeMap<String, u64>,
}

/// The resets so far.
pub(crate) fn reset_log(ctx: &SimContext<'_>) -> ResetLog {
    ctx.tool_state(RESET_SLOT)
        .and_then(|state| ResetLog::deserialize(state).ok())
        .unwrap_or_default()
}

/// The devices reset since `seen` (the counts an owner applied last), read-only.
fn reset_since(log: &ResetLog, seen: &BTreeMap<String, u64>) -> Vec<String> {
    log.devices
        .iter()
        .filter(|(device, count)| seen.get(*device).copied().unwrap_or(0) < **count)
        .map(|(device, _)| device.clone())
        .collect()
}

/// The devices reset since `seen`, which then holds the counts of now (for an owner that
/// applies them).
pub(crate) fn take_resets(ctx: &SimContext<'_>, seen: &mut BTreeMap<String, u64>) -> Vec<String> {
    let log = reset_log(ctx);
    let devices = reset_since(&log, seen);
    seen.clone_from(&log.devices);
    devices
}

/// `fault_ignore_staged=LINK_TYPE_P1[,NAME...]`: the firmware drops these staged values when it
/// activates the others (at a boot or a reset) and keeps the current ones, the reboot loop's
/// usual cause.
pub(crate) fn ignored_staged(ctx: &SimContext<'_>) -> Vec<String> {
    ctx.option("fault_ignore_staged")
        .unwrap_or("")
        .split(',')
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

/// One firmware parameter's values: in effect now, and staged for the next activation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NvValues {
    pub(crate) current: u64,
    pub(crate) next: u64,
}

/// Makes a device's staged values current, as a boot or a firmware reset does (except those
/// the firmware ignores).
pub(crate) fn activate<'a>(
    params: impl IntoIterator<Item = (&'a String, &'a mut NvValues)>,
    ignored: &[String],
) {
    for (name, values) in params {
        if ignored.contains(name) {
            values.next = values.current;
        } else {
            values.current = values.next;
        }
    }
}

/// What the `mlxconfig` simulator keeps: by device (mst name), by parameter; and the resets it
/// applied.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct NvConfig {
    pub(crate) devices: BTreeMap<String, BTreeMap<String, NvValues>>,
    #[serde(default)]
    pub(crate) resets_seen: BTreeMap<String, u64>,
}

/// The NV configuration in effect now, with any reset `mlxconfig` has not applied yet.
pub(crate) fn nvconfig(ctx: &SimContext<'_>) -> NvConfig {
    nvconfig_of(
        ctx.tool_state(NVCONFIG_SLOT),
        ctx.tool_state(RESET_SLOT),
        &ignored_staged(ctx),
    )
}

/// [`nvconfig`] from the two slots (a peer's, read from its state file).
pub(crate) fn nvconfig_of(
    slot: Option<&serde_json::Value>,
    resets: Option<&serde_json::Value>,
    ignored: &[String],
) -> NvConfig {
    let mut config: NvConfig = slot
        .and_then(|state| NvConfig::deserialize(state).ok())
        .unwrap_or_default();
    let log: ResetLog = resets
        .and_then(|state| ResetLog::deserialize(state).ok())
        .unwrap_or_default();
    for device in reset_since(&log, &config.resets_seen) {
        if let Some(params) = config.devices.get_mut(&device) {
            activate(params.iter_mut(), ignored);
        }
    }
    config.resets_seen = log.devices;
    config
}

/// What the firmware model (`mlxfwmanager`) keeps, by device (mst name): the image on flash,
/// the one running, and the resets it applied.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct FirmwareImages {
    /// The image on flash: what `mlxfwmanager` and `flint` show as the version.
    pub(crate) flashed: BTreeMap<String, String>,
    /// The image running (the flashed one after the next boot or reset).
    pub(crate) running: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) resets_seen: BTreeMap<String, u64>,
}

/// A ConnectX-5's firmware on a fresh host: `fw_version`, else its kind's (the guide's
/// 16.32.1010).
pub(crate) fn initial_fw(ctx: &SimContext<'_>, adapter: &Adapter) -> String {
    match ctx.option("fw_version") {
        Some(version) if adapter.kind.vpi => version.to_owned(),
        _ => adapter.kind.fw.to_owned(),
    }
}

/// An adapter's `(flashed, running)` firmware now, with any reset `mlxfwmanager` has not
/// applied yet.
pub(crate) fn images(ctx: &SimContext<'_>, adapter: &Adapter) -> (String, String) {
    let mut state: FirmwareImages = ctx
        .tool_state(FIRMWARE_SLOT)
        .and_then(|state| FirmwareImages::deserialize(state).ok())
        .unwrap_or_default();
    let mst = adapter.mst();
    if take_resets(ctx, &mut state.resets_seen).contains(&mst)
        && let Some(flashed) = state.flashed.get(&mst).cloned()
    {
        state.running.insert(mst.clone(), flashed);
    }
    let initial = || initial_fw(ctx, adapter);
    let flashed = state.flashed.get(&mst).cloned().unwrap_or_else(initial);
    let running = state
        .running
        .get(&mst)
        .cloned()
        .unwrap_or_else(|| flashed.clone());
    (flashed, running)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_is_taken_once_and_activation_honours_the_ignored_parameters() {
        let log = ResetLog {
            devices: BTreeMap::from([("mt4119_pciconf0".to_owned(), 2)]),
        };
        let mut seen = BTreeMap::from([("mt4119_pciconf0".to_owned(), 1)]);
        assert_eq!(reset_since(&log, &seen), ["mt4119_pciconf0"]);
        seen.clone_from(&log.devices);
        assert!(reset_since(&log, &seen).is_empty());
        let mut params = BTreeMap::from([
            (
                "LINK_TYPE_P1".to_owned(),
                NvValues {
                    current: 2,
                    next: 1,
                },
            ),
            (
                "SRIOV_EN".to_owned(),
                NvValues {
                    current: 1,
                    next: 0,
                },
            ),
        ]);
        activate(params.iter_mut(), &["SRIOV_EN".to_owned()]);
        assert_eq!(
            params["LINK_TYPE_P1"],
            NvValues {
                current: 1,
                next: 1
            }
        );
        assert_eq!(
            params["SRIOV_EN"],
            NvValues {
                current: 1,
                next: 1
            }
        );
    }
}
