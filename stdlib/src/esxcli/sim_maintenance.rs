//! What maintenance mode gates on the simulated ESXi host, as on a real one: entering it waits
//! for the host's running VMs, a VIB whose descriptor requires it is refused without it, and
//! `esxcli system shutdown reboot` runs only in it. Sources and the wording of each message are
//! in docs/simulator.md ("Maintenance mode"); where no published output gives a text, the
//! closest published wording is used and marked so there.

use std::time::Duration;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use super::sim_state::{EsxcliState, SimVib, parse_bool};
use crate::machine::esxi::{error, flag_value, has, ok};
use crate::machine::host_vms::running_vms;

/// How long the simulator lets an enter with no timeout wait (`-t 0`, esxcli's default: no
/// limit) when the command has no timeout of its own either: a day, the simulator's forever.
const FOREVER: Duration = Duration::from_secs(86_400);

/// `esxcli system maintenanceMode set -e BOOL [-t SECONDS]`.
///
/// Entering waits while a VM registered on the host runs: the host enters "after all virtual
/// machines on the host have been suspended or migrated" (vSphere CLI Concepts and Examples
/// 6.7), and nothing migrates a VM here (no DRS; a DirectPath I/O VM cannot be migrated or
/// suspended at all). `-t` is "Time to perform operation in seconds (default 0 seconds)", and
/// the API's EnterMaintenanceMode_Task reads 0 as no timeout: the command then waits until its
/// own timeout, as the real one hangs.
pub(super) fn maintenance_set(
    host: &mut SimContext<'_>,
    state: &mut EsxcliState,
    argv: &[String],
) -> ExecOutput {
    let Some(value) = flag_value(argv, &["-e", "--enable"]) else {
        return error(1, "Error: Missing required parameter -e|--enable\n".into());
    };
    let Some(on) = parse_bool(value) else {
        return error(1, format!("Error: invalid boolean value `{value}`\n"));
    };
    let timeout = match flag_value(argv, &["-t", "--timeout"]) {
        None => 0,
        Some(text) => match text.parse::<u64>() {
            Ok(seconds) => seconds,
            Err(_) => {
                return error(
                    1,
                    format!(
                        "Error: invalid value `{text}` for -t|--timeout: a number of seconds\n"
                    ),
                );
            }
        },
    };
    if !on && !state.maintenance {
        // "an error informs you that maintenance mode is already disabled" (same page).
        return error(1, "Maintenance mode is already disabled.\n".into());
    }
    if on && !state.maintenance {
        let running = running_vms(host);
        if !running.is_empty() {
            let wait = if timeout > 0 {
                Duration::from_secs(timeout)
            } else {
                host.timeout().unwrap_or(FOREVER)
            };
            if !host.sleep(wait) {
                // The command's own timeout passed first: the transport reports it.
                return error(1, String::new());
            }
            let names: Vec<String> = running
                .iter()
                .map(|vm| {
                    if vm.passthrough {
                        format!(
                            "{} (DirectPath I/O: cannot be migrated or suspended)",
                            vm.name
                        )
                    } else {
                        vm.name.clone()
                    }
                })
                .collect();
            return error(
                1,
                format!(
                    "Operation timed out\n(cairn sim: still running on {}: {}; power it off first)\n",
                    host.host_name(),
                    names.join(", ")
                ),
            );
        }
    }
    state.maintenance = on;
    ok(String::new())
}

/// `esxcli system shutdown reboot -r REASON [-d SECONDS]`: `--reason` is required, and the
/// host must be in maintenance mode (the API's RebootHost_Task: "InvalidState: if force is
/// false and the host is not in maintenance mode"; esxcli never forces). The delay is checked
/// and the host goes down at once: the simulator does not wait it out. The shell's `reboot`,
/// which `reboot()` sends, needs neither.
pub(super) fn shutdown_reboot(
    host: &mut SimContext<'_>,
    state: &EsxcliState,
    argv: &[String],
) -> ExecOutput {
    if flag_value(argv, &["-r", "--reason"]).is_none_or(|r| r.trim().is_empty()) {
        return error(1, "Error: Missing required parameter -r|--reason\n".into());
    }
    if let Some(delay) = flag_value(argv, &["-d", "--delay"])
        && delay.parse::<u64>().is_err()
    {
        return error(
            1,
            format!("Error: invalid value `{delay}` for -d|--delay: a number of seconds\n"),
        );
    }
    if !state.maintenance {
        return error(
            1,
            "The operation is not allowed in the current state.\n(cairn sim: the host is not in maintenance mode: esxcli system maintenanceMode set -e true)\n"
                .into(),
        );
    }
    host.request_reboot();
    ok(String::new())
}

/// The VIBs whose descriptor says `<maintenance-mode>true</maintenance-mode>`: the native
/// driver's (a driver VIB is not live-installable and needs the host in maintenance mode). The
/// MFT and NMST VIBs install without it, as NVIDIA's MFT steps for ESXi do (install, reboot).
const MAINTENANCE_VIBS: &[&str] = &["nmlx5-core", "nmlx5-rdma"];

/// Whether `vib` requires maintenance mode to be installed or removed.
fn requires_maintenance(vib: &SimVib) -> bool {
    MAINTENANCE_VIBS.contains(&vib.name.as_str())
}

/// esxcli's refusal of an install that changes VIBs requiring maintenance mode on a host not in
/// it (`--maintenance-mode` "pretends that maintenance mode is in effect"; `--dry-run` changes
/// nothing and is not refused). `None`: the install may go on.
pub(super) fn install_refusal(
    state: &EsxcliState,
    argv: &[String],
    removed: &[SimVib],
    installed: &[SimVib],
) -> Option<ExecOutput> {
    if state.maintenance || has(argv, &["--maintenance-mode", "--dry-run"]) {
        return None;
    }
    let ids = |vibs: &[SimVib]| {
        vibs.iter()
            .filter(|v| requires_maintenance(v))
            .map(SimVib::id)
            .collect::<Vec<_>>()
    };
    let (remove, install) = (ids(removed), ids(installed));
    if remove.is_empty() && install.is_empty() {
        return None;
    }
    Some(error(
        1,
        format!(
            " [MaintenanceModeError]\n MaintenanceMode is required to remove: [{}]; install: [{}].\n Please refer to the log file for more details.\n",
            remove.join(", "),
            install.join(", ")
        ),
    ))
}
