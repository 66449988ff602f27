//! `reboot`, `reboot_if_pending` and `reboot_pending`: a reboot journaled with its place in
//! the disruption budget, and the check of what was staged for it.

use rhai::{Engine, NativeCallContext};
use serde_json::{Value, json};

use super::RhaiResult;
use crate::{ActionCall, ActionError, HostContext, NOT_APPLIED, Outcome, Reconcile, reboot};

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REBOOT_HELP: &str =
    "Reboots the host and waits for it to come back with a new boot id (see below).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REBOOT_IF_PENDING_HELP: &str =
    "Reboots only if an earlier action staged a change for the next boot; returns whether it did.";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const REBOOT_PENDING_HELP: &str = "Whether a reboot is pending.";

/// Registers the reboot builtins.
pub(super) fn register(engine: &mut Engine) {
    crate::documented::register(
        engine,
        "reboot",
        [],
        REBOOT_HELP,
        |ctx: NativeCallContext| reboot_now(&ctx),
    );
    crate::documented::register(
        engine,
        "reboot_if_pending",
        [],
        REBOOT_IF_PENDING_HELP,
        |ctx: NativeCallContext| -> RhaiResult<bool> {
            let host = HostContext::current(&ctx)?;
            if host.reboot_pending().is_some() {
                reboot_now(&ctx)?;
                Ok(true)
            } else {
                Ok(false)
            }
        },
    );
    crate::documented::register(
        engine,
        "reboot_pending",
        [],
        REBOOT_PENDING_HELP,
        |ctx: NativeCallContext| -> RhaiResult<bool> {
            Ok(HostContext::current(&ctx)?.reboot_pending().is_some())
        },
    );
}

fn reboot_now(ctx: &NativeCallContext) -> RhaiResult<()> {
    let host = HostContext::current(ctx)?;
    let call = ActionCall {
        args: json!({}),
        assumed: Value::Null,
        builtin: "reboot".into(),
        reconcile: Reconcile::Probe(Box::new(reboot::reconcile)),
    };
    let site = host.site(ctx);
    let budget = host.clone();
    // The place is given back once the host is back and its outcome journaled, so no journal
    // shows two reboots at once under a budget of one; a reboot that failed (the host did not
    // come back) keeps it: the host may well be down.
    host.perform(call, &site, move |io| {
        budget.take_budget(crate::Disruption::Reboot)?;
        reboot::reboot(io)
    })
    .map_err(|e| host.fail(e, ctx.call_position()))?;
    host.release_budget(crate::Disruption::Reboot);
    after_boot(&host, &site).map_err(|e| host.fail(e, ctx.call_position()))
}

/// The reboot-loop breaker: after a reboot, every change staged for it is checked, as one
/// journaled action, so a change the host did not apply fails the host with what was seen
/// instead of being staged again for another reboot. Failed, it runs again on a resume; the
/// reboot before it does not.
fn after_boot(host: &HostContext, site: &crate::CallSite) -> Result<(), ActionError> {
    let mut checks = host.take_after_boot();
    // A journal written before a builtin left its check holds no `after_reboot` here, or one
    // that staged fewer: replaying it, only what it staged is checked, so it does not diverge.
    match host.next_recorded() {
        Some((builtin, _)) if builtin != "after_reboot" => return Ok(()),
        Some((_, args)) => checks.retain(|staged| {
            args["staged"]
                .as_array()
                .is_some_and(|names| names.iter().any(|s| s == staged.what.as_str()))
        }),
        None => {}
    }
    if checks.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = checks.iter().map(|staged| staged.what.as_str()).collect();
    let call = ActionCall {
        args: json!({ "staged": names }),
        assumed: Value::Null,
        builtin: "after_reboot".into(),
        reconcile: Reconcile::Redo,
    };
    host.perform(call, site, |io| {
        for staged in &checks {
            if let Some(error) = (staged.check)(io)? {
                // Which change did not take, and the action that staged it, for the report.
                io.record_progress(
                    json!({ NOT_APPLIED: { "what": staged.what, "seq": staged.seq } }),
                )?;
                return Err(error.staged_in(&staged.stage));
            }
        }
        Ok(Outcome::unchanged(json!({ "applied": names })))
    })
    .map(|_| ())
}
