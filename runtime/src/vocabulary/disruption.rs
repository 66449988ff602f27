//! `unavailable` and `available`: the steps that take a host's service away, declared.

use rhai::{Engine, NativeCallContext};

use super::RhaiResult;
use crate::HostContext;

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const UNAVAILABLE_HELP: &str = "Declares that this host's service goes away from here (its VM powered off, maintenance mode, \
    a reboot, a driver restart): the host takes its place in the disruption budget \
    (`--max-unavailable`) first, waiting for room, and counts as down until `available()` or the \
    end of the stage's block. A host waiting for room is waiting, not down; a host that fails \
    while down stays down. Once a roll is halted at a failed host, a host that is still up stops \
    here instead (see `serial` above).";

/// `:help`'s text (docs/language.md's row says the same; a test keeps them equal).
const AVAILABLE_HELP: &str =
    "The host is back and ready: gives its place in the disruption budget back.";

/// Registers `unavailable` and `available`.
pub(super) fn register(engine: &mut Engine) {
    // The steps that take a host's service away, declared: the disruption budget is taken
    // before the first of them and given back once the host is back and ready.
    crate::documented::register(
        engine,
        "unavailable",
        [],
        UNAVAILABLE_HELP,
        |ctx: NativeCallContext| -> RhaiResult<()> {
            let host = HostContext::current(&ctx)?;
            host.declare_unavailable()
                .map_err(|e| host.fail(e, ctx.call_position()))
        },
    );
    crate::documented::register(
        engine,
        "available",
        [],
        AVAILABLE_HELP,
        |ctx: NativeCallContext| -> RhaiResult<()> {
            HostContext::current(&ctx)?.release_budget(crate::Disruption::Declared);
            Ok(())
        },
    );
}
