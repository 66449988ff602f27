//! `retry(times, delay_secs, || ...)`: run a closure until it succeeds, as Ansible's
//! `retries`/`delay`/`until` does for a task.
//!
//! Each failed attempt ends with a journaled `retry` action that waits `delay_secs` on the
//! host's clock (virtual on the simulator, so a test does not sleep). A resume replays the
//! attempts the journal holds: inside a retry, an action that failed and that the run went on
//! past replays as the same failure instead of running again (see
//! `HostContext::replayed_failure`), so the count goes on where it stopped, not from one.

use std::time::Duration;

use rhai::{Dynamic, Engine, EvalAltResult, FnPtr, NativeCallContext};
use serde_json::json;

use crate::{ActionCall, ActionError, HostContext, Outcome, Reconcile};

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const RETRY_HELP: &str = "Calls the closure until it returns without failing, at most `times` times, waiting \
    `delay_secs` on the host's clock (virtual on the simulator) after each failed attempt; \
    returns the closure's value. A failed command, `expect` or `throw` is retried; a runbook \
    error, a stopped run or an unknown outcome is not. Each wait is a journaled `retry` action, \
    and a resume replays the failed attempts the run went on past instead of running them again, \
    so the count goes on where it stopped. After the last attempt the host fails with `retry: \
    all N attempt(s) failed, D s apart; the last: ...`.";

/// Registers `retry`.
pub(crate) fn register(engine: &mut Engine) {
    crate::documented::register(
        engine,
        "retry",
        ["times", "delay_secs", "closure"],
        RETRY_HELP,
        |ctx: NativeCallContext, times: i64, delay_secs: i64, body: FnPtr| {
            retry(&ctx, times, delay_secs, &body)
        },
    );
}

/// The fewest attempts `retry` takes (`cairn check` refuses a literal below).
pub(crate) const LEAST_ATTEMPTS: i64 = 1;

fn retry(
    ctx: &NativeCallContext,
    times: i64,
    delay_secs: i64,
    body: &FnPtr,
) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    let wrong = |message: String| host.fail(ActionError::Runbook(message), ctx.call_position());
    let times = u32::try_from(times)
        .ok()
        .filter(|t| i64::from(*t) >= LEAST_ATTEMPTS)
        .ok_or_else(|| wrong(format!("`retry` needs at least 1 attempt, not {times}")))?;
    let delay = u64::try_from(delay_secs).map_err(|_| {
        wrong(format!(
            "`retry`'s delay cannot be negative ({delay_secs} s)"
        ))
    })?;
    let _inside = host.enter_retry();
    let mut last = String::new();
    for attempt in 1..=times {
        let error = match body.call_within_context::<Dynamic>(ctx, ()) {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        let typed = crate::raised_error::action_error_of(&error);
        if !retryable(typed.as_deref(), &error) {
            // Raised again at the closure's call, as it was when the closure failed.
            return Err(match error.unwrap_inner() {
                EvalAltResult::ErrorRuntime(value, _) if typed.is_some() => {
                    Box::new(EvalAltResult::ErrorRuntime(value.clone(), error.position()))
                }
                _ => error,
            });
        }
        last = crate::raised_error::error_message(error.unwrap_inner());
        if attempt == times {
            break;
        }
        let call = ActionCall {
            args: json!({ "attempt": attempt, "of": times, "delay_secs": delay }),
            assumed: json!({ "error": last }),
            builtin: "retry".into(),
            reconcile: Reconcile::Redo,
        };
        let site = host.site(ctx);
        let failed = last.clone();
        host.perform(call, &site, |io| {
            if !io.checking() {
                io.wait(Duration::from_secs(delay))?;
            }
            Ok(Outcome::unchanged(json!({ "error": failed })))
        })
        .map_err(|e| host.fail(e, ctx.call_position()))?;
    }
    Err(host.fail(
        ActionError::Failed(format!(
            "retry: all {times} attempt(s) failed, {delay} s apart; the last: {last}"
        )),
        ctx.call_position(),
    ))
}

/// Whether another attempt may help: not when the run is stopping, the journal or the runbook
/// is at fault, or the operator must decide.
fn retryable(typed: Option<&ActionError>, error: &EvalAltResult) -> bool {
    match typed {
        Some(
            ActionError::CommandFailed { .. }
            | ActionError::RunExited { .. }
            | ActionError::Expectation(_)
            | ActionError::Failed(_)
            | ActionError::Argument(_)
            | ActionError::NotAHost(_)
            | ActionError::NotInstalled { .. }
            | ActionError::ToolSaid { .. }
            | ActionError::RebootTimeout { .. },
        ) => true,
        Some(error @ ActionError::Transport(_)) => !error.outcome_unknown(),
        Some(_) => false,
        // A `throw` in the closure is the runbook's own way to say "not yet".
        None => matches!(error.unwrap_inner(), EvalAltResult::ErrorRuntime(..)),
    }
}
