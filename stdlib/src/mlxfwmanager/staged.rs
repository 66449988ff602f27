//! The reboot-loop breaker's check for `mlxfwmanager::update`: after the reboot the adapter
//! runs the firmware that was burnt. While it does not, mlxfwmanager lists a `FW (Running)` row
//! under `FW` with the version still running; a host whose reboot did not load the new image
//! fails with that version instead of a runbook burning and rebooting again.

use std::sync::Arc;

use super::reads::{self, FirmwareUpdate};
use crate::action::{self, Probe};

/// After the update's reboot, `dev` runs the version it burnt; `None` when nothing was burnt,
/// no restart is needed, or the outcome was assumed done (no versions).
pub(super) fn firmware_after_boot(dev: &str, update: &FirmwareUpdate) -> Option<Probe> {
    if update.reboot_required != Some(true) {
        return None;
    }
    let burnt = update.versions.as_ref()?.to.clone()?;
    let dev = dev.to_owned();
    Some(Probe {
        what: format!("mlxfwmanager {dev} firmware {burnt}"),
        check: Arc::new(move |io| {
            let Some(device) = reads::device_firmware(io, &dev)? else {
                return Err(action::not_installed("mlxfwmanager", io.host()));
            };
            let seen = device.running().unwrap_or("unknown");
            if seen == burnt {
                return Ok(None);
            }
            Ok(Some(action::not_applied(
                io,
                format!("mlxfwmanager {dev} firmware"),
                seen.to_owned(),
                &format!(
                    "the adapter did not load the burnt {burnt} (a warm reboot does not reset \
                     every adapter; a cold boot or `mlxfwreset` does)"
                ),
            )))
        }),
    })
}
