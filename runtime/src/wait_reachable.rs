//! `wait_reachable(timeout_secs)`: waits until the host answers again, as `reboot()` waits for
//! a host to come back, for a host something else took down: a VM's guest after its VM was
//! powered on in vCenter boots before it answers.
//!
//! One journaled action that changes nothing; a resume runs it again (waiting for a host that
//! already answers costs one command), so a controller that dies in the wait resumes there.

use std::time::Duration;

use rhai::{Engine, EvalAltResult, NativeCallContext};
use serde_json::{Value, json};

use crate::{ActionCall, ActionError, ExecRequest, HostContext, HostIo, Outcome, Reconcile};

type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// Polls as `reboot()` does: every half second for the first ten seconds, then doubling up to
/// ten seconds between polls.
const FIRST_POLL: Duration = Duration::from_millis(500);
const QUICK_PHASE_MS: u64 = 10_000;
const LONGEST_POLL: Duration = Duration::from_secs(10);

/// The shortest timeout `wait_reachable` takes, seconds (`cairn check` refuses a literal below).
pub(crate) const LEAST_TIMEOUT_SECS: i64 = 1;

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const WAIT_REACHABLE_HELP: &str = "Waits until the host answers a command again, polling as `reboot()` does (every half second, \
    then backing off to ten seconds) on the host's clock: for a host something else took down, \
    such as a VM's guest, which boots after its VM is powered on in vCenter (`vhpc::power(vm, \
    \"on\")` on the management host) and answers only once booted. A host that does not answer \
    within `timeout_secs` fails with ``HOST` did not answer within N s (`wait_reachable`): \
    REASON`, the reason being the last one the transport gave. One journaled `wait_reachable` \
    action that changes nothing; a resume runs it again, so a run stopped in the wait resumes \
    there. In check mode it does not wait.";

/// Registers `wait_reachable`.
pub(crate) fn register(engine: &mut Engine) {
    crate::documented::register(
        engine,
        "wait_reachable",
        ["timeout_secs"],
        WAIT_REACHABLE_HELP,
        |ctx: NativeCallContext, timeout_secs: i64| wait_reachable(&ctx, timeout_secs),
    );
}

fn wait_reachable(ctx: &NativeCallContext, timeout_secs: i64) -> RhaiResult<()> {
    let host = HostContext::current(ctx)?;
    let timeout = u64::try_from(timeout_secs)
        .ok()
        .filter(|_| timeout_secs >= LEAST_TIMEOUT_SECS)
        .ok_or_else(|| {
            host.fail(
                ActionError::Runbook(format!(
                    "`wait_reachable` needs a timeout of at least 1 s, not {timeout_secs}"
                )),
                ctx.call_position(),
            )
        })?;
    let call = ActionCall {
        args: json!({ "timeout_secs": timeout }),
        assumed: Value::Null,
        builtin: "wait_reachable".into(),
        reconcile: Reconcile::Redo,
    };
    let site = host.site(ctx);
    host.perform(call, &site, |io| {
        if io.checking() {
            return Ok(Outcome::unchanged(json!({ "checked": true })));
        }
        wait(io, timeout)
    })
    .map(|_| ())
    .map_err(|e| host.fail(e, ctx.call_position()))
}

/// Sends `true` until it answers, or fails with why the host did not, once `timeout` seconds
/// have passed on its clock.
fn wait(io: &mut HostIo<'_>, timeout: u64) -> Result<Outcome, ActionError> {
    let clock = io.clock();
    let started = clock.now_millis();
    let mut poll = FIRST_POLL;
    loop {
        let waited = clock.now_millis().saturating_sub(started);
        let reason = match io.exec(&ExecRequest::new(["true"])) {
            Ok(_) => return Ok(Outcome::unchanged(json!({ "waited_ms": waited }))),
            Err(ActionError::Transport(error)) => error.to_string(),
            Err(error) => return Err(error),
        };
        io.disconnect();
        if waited >= timeout.saturating_mul(1000) {
            return Err(ActionError::Failed(format!(
                "`{}` did not answer within {timeout} s (`wait_reachable`): {reason}",
                io.host()
            )));
        }
        io.wait(poll)?;
        if waited >= QUICK_PHASE_MS {
            poll = (poll * 2).min(LONGEST_POLL);
        }
    }
}
