//! The `mlxfwreset::` builtins: which reset levels a device supports, what waits for a reset,
//! and the reset that loads a staged firmware image or NVCONFIG change without a reboot.

use cairn_runtime::{ActionCall, ActionError, HostContext, HostIo, Outcome, Reconcile};
use rhai::plugin::*;
use rhai::{Map, NativeCallContext};
use serde_json::json;

use serde::{Deserialize, Serialize};

use super::{command, reads};
use crate::action::{self, RhaiResult};

/// The levels `reset` takes: 0 live patch, 1 immediate reset (BlueField's ARM side), 3 driver
/// restart and PCI reset. Level 4 is a warm reboot, which `reboot()` does and waits for.
const RESET_LEVELS: &[u32] = &[0, 1, 3];

/// The `mlxfwreset::` module.
///
/// MFT's `mlxfwreset` on a bare-metal Linux host (`sim:rhel8-metal`): loading a staged firmware
/// image or `mlxconfig` change without rebooting the host. The reset levels are the tool's: 0
/// live patch (driver, PCI link and network link stay up), 1 immediate reset (BlueField's ARM
/// side), 3 driver restart and PCI reset, 4 warm reboot (NVIDIA MFT documentation, "mlxfwreset –
/// Loading Firmware on 5th Generation Devices Tool"; mstflint `small_utils/mstfwreset.py`). MFT
/// documents FreeBSD, Linux and Windows as its supported OSs, and the ESXi MFT bundle has no
/// `mlxfwreset`: on `sim:esxi7` the command is not found, `query` answers `installed: false`, and
/// the library helper `connectx::activate` reboots instead.
///
/// ```rhai
/// import "connectx" as cx;
/// mlxconfig::set("3b:00.0", #{ LINK_TYPE_P1: "IB" });
/// let how = cx::activate("3b:00.0");   // "mlxfwreset level 3", or "reboot" where no level is supported
/// ```
#[export_module]
pub mod mlxfwreset_builtins {
    use super::*;

    /// The reset levels a device (`3b:00.0`, `mt4119_pciconf0`) supports now, from
    /// `mlxfwreset -d DEV query`: `#{device, installed, levels: [#{number, description,
    /// supported, default}], types, syncs, methods, supported_levels: [3, 4], default_level,
    /// errors}`. A device that supports no level (the tool says "There is no supported
    /// reset-level") has empty `supported_levels`; a host without `mlxfwreset` (ESXi, whose MFT
    /// has none) has `installed: false`.
    ///
    /// ```rhai
    /// let q = mlxfwreset::query("3b:00.0");
    /// if q.supported_levels.contains(3) { log("a driver restart and PCI reset loads it"); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn query(ctx: NativeCallContext, dev: String) -> RhaiResult<Map> {
        let levels = action::query_typed(
            &ctx,
            crate::mlxfwreset::NAMESPACE,
            json!({ "device": dev }),
            "mlxfwreset's reset levels",
            |io| reads::levels(io, &dev),
        )?;
        action::as_map(&levels)
    }

    /// What waits for a reset on a device, from `mlxfwreset -d DEV status`: `#{device,
    /// installed, pending, pending_fw_version, running_fw_version, pending_nvconfig: [#{name,
    /// default, current, next_boot}], description_action, command_required, reasons}`.
    ///
    /// ```rhai
    /// let s = mlxfwreset::status("3b:00.0");
    /// if s.pending { log(`waiting for a reset: ${s.reasons}`); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn status(ctx: NativeCallContext, dev: String) -> RhaiResult<Map> {
        let pending = action::query_typed(
            &ctx,
            crate::mlxfwreset::NAMESPACE,
            json!({ "device": dev }),
            "mlxfwreset's reset status",
            |io| reads::pending(io, &dev),
        )?;
        action::as_map(&pending)
    }

    /// Loads the staged firmware image and NVCONFIG changes of a device at reset `level` (0
    /// live patch, 3 driver restart and PCI reset), without rebooting the host
    /// (`mlxfwreset -d DEV -y reset --level N`). Nothing happens when nothing is staged
    /// (`mlxfwreset status`); a level the device does not support now fails with the tool's
    /// words and the levels it does support. Returns `#{device, level, reset, reasons}`; the
    /// journal records the level. After a reset the host no longer owes the reboot that
    /// `mlxconfig::set` and `mlxfwmanager::update` asked for (what other builtins staged still
    /// does).
    ///
    /// ```rhai
    /// mlxconfig::set("3b:00.0", #{ LINK_TYPE_P1: "IB" });
    /// mlxfwreset::reset("3b:00.0", 3);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn reset(ctx: NativeCallContext, dev: String, level: i64) -> RhaiResult<Map> {
        let level = match u32::try_from(level) {
            Ok(level) if RESET_LEVELS.contains(&level) => level,
            Ok(4) => {
                return Err(runbook_error(
                    &ctx,
                    "mlxfwreset::reset level 4 is a warm reboot of the host: call `reboot()`, which waits for the host to come back and journals it".into(),
                ));
            }
            _ => {
                return Err(runbook_error(
                    &ctx,
                    format!(
                        "mlxfwreset::reset level {level} is not a reset level: 0 (live patch), 1 (immediate reset) or 3 (driver restart and PCI reset)"
                    ),
                ));
            }
        };
        reset_at(&ctx, &dev, level)
    }
}

fn runbook_error(ctx: &NativeCallContext, message: String) -> Box<EvalAltResult> {
    match HostContext::current(ctx) {
        Ok(host) => host.fail(ActionError::Runbook(message), ctx.call_position()),
        Err(error) => error,
    }
}

/// Runs the reset and reads its transcript (`mlxfwreset-reset`): the tool's own error (an
/// `-E-` line, a step that printed `Failed`) fails the builtin with its words and line.
fn reset_run(io: &mut HostIo<'_>, argv: &[String]) -> Result<(), ActionError> {
    let line = argv.join(" ");
    let Some(output) = reads::run_tool(io, argv)? else {
        return Err(ActionError::Failed(format!(
            "`{line}`: mlxfwreset is not installed (MFT)"
        )));
    };
    let parsed = action::parsed(argv, &output.stdout, crate::mlxfwreset::parse_reset)?;
    if let Some(error) = &parsed.error {
        let help =
            "check `mlxfwreset -d DEV query` for the levels the device supports now, or reboot";
        return Err(action::tool_failure(&line, error, &[], help));
    }
    if output.code != 0 {
        return Err(reads::failed(argv, output, &[]));
    }
    Ok(())
}

/// What `mlxfwreset::reset` returns: whether it reset the device, at which level, and why it
/// had to; `predicted` only when nothing waited (check mode's prediction before MFT).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ResetDone {
    device: String,
    level: u32,
    reset: bool,
    reasons: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    predicted: Option<bool>,
}

fn reset_at(ctx: &NativeCallContext, dev: &str, level: u32) -> RhaiResult<Map> {
    // In check mode a change staged earlier in the run was only predicted: the host's
    // predicted reboot-pending flag stands for it.
    let staged_in_check = HostContext::current(ctx)?.reboot_pending().is_some();
    let dev_owned = dev.to_owned();
    let call = ActionCall {
        args: json!({ "device": dev, "level": level }),
        assumed: json!({ "device": dev, "level": level, "reset": true, "reasons": [] }),
        builtin: action::builtin_name(ctx, crate::mlxfwreset::NAMESPACE),
        // Settled by the status: nothing pending means the reset happened (if it got as far as
        // recording that something was pending).
        reconcile: Reconcile::Marked(Box::new(move |io, _| {
            let status = reads::pending(io, &dev_owned)?;
            Ok((!status.pending()).then(|| Outcome {
                changed: true,
                reboot_required: false,
                value: json!({ "device": dev_owned, "level": level, "reset": true, "reasons": [] }),
            }))
        })),
    };
    let value = action::act(ctx, call, |io| {
        let status = reads::pending(io, dev)?;
        let reasons = status.reasons();
        let predicted = io.checking() && staged_in_check;
        if !status.pending() && !predicted {
            return Ok(Outcome::unchanged(action::json(&ResetDone {
                device: dev.to_owned(),
                level,
                reset: false,
                reasons: Vec::new(),
                predicted: Some(status.predicted()),
            })));
        }
        let levels = reads::levels(io, dev)?;
        let supported = levels.supported();
        if !supported.contains(&level) {
            let listed: Vec<String> = supported.iter().map(u32::to_string).collect();
            return Err(ActionError::Failed(format!(
                "Reset-level '{level}' is not supported in the current state of `{dev}` (mlxfwreset query: supported levels {}); reboot instead",
                if listed.is_empty() {
                    "none".to_owned()
                } else {
                    listed.join(", ")
                }
            )));
        }
        let value = json!({ "device": dev, "level": level, "reset": true, "reasons": reasons });
        if io.checking() {
            return Ok(Outcome {
                changed: true,
                reboot_required: false,
                value,
            });
        }
        io.acting(json!({ "device": dev, "level": level, "reasons": reasons }))?;
        let argv = command::reset(dev, level);
        reset_run(io, &argv)?;
        let after = reads::pending(io, dev)?;
        if after.pending() {
            return Err(ActionError::Failed(format!(
                "`{dev}` still has changes waiting after `{}`: {}",
                argv.join(" "),
                action::json(&after.reasons())
            )));
        }
        Ok(Outcome {
            changed: true,
            reboot_required: false,
            value,
        })
    })?;
    let done: ResetDone = action::result_typed(ctx, &value, "mlxfwreset::reset's result")?;
    if done.reset {
        // The reset loaded what these staged, as their reboot would have (also when replayed,
        // so a resumed run owes the same).
        HostContext::current(ctx)?.staged_activated(&["mlxconfig::set", "mlxfwmanager::update"]);
    }
    action::as_map(&done)
}
