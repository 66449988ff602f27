//! `reboot()`: by boot id, so a controller that dies anywhere in it resumes correctly.
//!
//! The old boot id is recorded (fsynced) before the reboot command is sent. The host must then
//! come back with a different boot id within the reboot timeout; anything else fails.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{ActionError, ExecRequest, HostIo, Outcome, RunEvent, TransportError};

/// Polls every half second for the first ten seconds (most reboots of simulated hosts and VMs
/// are that quick), then back off, doubling up to ten seconds between polls.
const FIRST_POLL: Duration = Duration::from_millis(500);
const QUICK_PHASE_MS: u64 = 10_000;
const LONGEST_POLL: Duration = Duration::from_secs(10);

/// Reboots the host and waits for it to come back.
pub(crate) fn reboot(io: &mut HostIo<'_>) -> Result<Outcome, ActionError> {
    if io.checking() {
        return Ok(Outcome {
            changed: true,
            reboot_required: false,
            value: json!({ "checked": true }),
        });
    }
    let old = boot_id(io)?;
    io.record_progress(json!({ "old_boot_id": old }))?;
    issue(io, &old)
}

/// Settles a reboot whose outcome was not recorded, from the boot id it recorded.
pub(crate) fn reconcile(
    io: &mut HostIo<'_>,
    progress: &[Value],
) -> Result<Option<Outcome>, ActionError> {
    let Some(old) = progress.iter().find_map(|p| p.get("old_boot_id")?.as_str()) else {
        return Ok(None);
    };
    let old = old.to_owned();
    match boot_id(io) {
        // Never sent, or not taken: the action runs again, its reboot under the host's fence
        // as any action's command. Sent from here, a probe's, it went outside the fence.
        Ok(now) if now == old => Ok(None),
        Ok(now) => Ok(Some(came_back(io, &old, now, 0))),
        Err(ActionError::Transport(TransportError::Unreachable { .. })) => {
            wait_for_new_boot(io, &old).map(Some)
        }
        Err(error) => Err(error),
    }
}

fn issue(io: &mut HostIo<'_>, old: &str) -> Result<Outcome, ActionError> {
    match io.exec(&ExecRequest::new(["reboot"])) {
        Ok(output) if output.code != 0 => {
            return Err(ActionError::CommandFailed {
                code: output.code,
                command: "reboot".into(),
                stderr: output.stderr,
            });
        }
        // The connection dropping under a reboot command is what a reboot looks like.
        Ok(_) | Err(ActionError::Transport(_)) => {}
        Err(error) => return Err(error),
    }
    io.disconnect();
    io.report(RunEvent::Rebooting {
        host: io.host().to_owned(),
        clock_scale: io.clock().scale(),
    });
    wait_for_new_boot(io, old)
}

fn wait_for_new_boot(io: &mut HostIo<'_>, old: &str) -> Result<Outcome, ActionError> {
    let clock = io.clock();
    let started = clock.now_millis();
    let limit = u64::try_from(io.reboot_timeout().as_millis()).unwrap_or(u64::MAX);
    let mut poll = FIRST_POLL;
    loop {
        io.wait(poll)?;
        let waited = clock.now_millis().saturating_sub(started);
        if waited >= QUICK_PHASE_MS {
            poll = (poll * 2).min(LONGEST_POLL);
        }
        match boot_id(io) {
            Ok(now) if now != old => return Ok(came_back(io, old, now, waited)),
            // This machine failing the host's state (a full disk) is no sign of the reboot:
            // waiting on would end in a timeout that hides the cause.
            Err(ActionError::Transport(error @ TransportError::HostState { .. })) => {
                return Err(error.into());
            }
            Ok(_) | Err(ActionError::Transport(_)) if waited < limit => io.disconnect(),
            Ok(_) | Err(ActionError::Transport(_)) => {
                return Err(ActionError::RebootTimeout {
                    host: io.host().to_owned(),
                    seconds: io.reboot_timeout().as_secs(),
                });
            }
            Err(error) => return Err(error),
        }
    }
}

fn came_back(io: &mut HostIo<'_>, old: &str, new: String, waited_ms: u64) -> Outcome {
    io.report(RunEvent::Rebooted {
        host: io.host().to_owned(),
        waited_ms,
    });
    Outcome {
        changed: true,
        reboot_required: false,
        value: json!({ "old_boot_id": old, "new_boot_id": new, "waited_ms": waited_ms }),
    }
}

/// The host's boot id: the kernel's on Linux, the boot count of `vmksummary.log` on ESXi.
pub(crate) fn boot_id(io: &mut HostIo<'_>) -> Result<String, ActionError> {
    let linux = io.exec(&ExecRequest::new([
        "cat",
        "/proc/sys/kernel/random/boot_id",
    ]))?;
    if linux.code == 0 && !linux.stdout.trim().is_empty() {
        return Ok(linux.stdout.trim().to_owned());
    }
    let esxi = io.exec(&ExecRequest::new(["cat", "/var/log/vmksummary.log"]))?;
    let boots: Vec<&str> = esxi
        .stdout
        .lines()
        .filter(|line| line.contains("booted"))
        .collect();
    match boots.last() {
        Some(last) if esxi.code == 0 => Ok(format!("{}:{}", boots.len(), last.trim())),
        _ => Err(ActionError::Failed(format!(
            "cannot tell `{}`'s boot id: neither /proc/sys/kernel/random/boot_id nor /var/log/vmksummary.log is readable",
            io.host()
        ))),
    }
}
