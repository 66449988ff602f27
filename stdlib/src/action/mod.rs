//! What every vendor builtin shares: running a query or a change as a journaled action on the
//! current host, and failing with a typed error that keeps the call's position; running a
//! command, reading options, and the error for output that does not parse.
//!
//! Its parts: `query`/`act` as journaled actions; the change helper (`change.rs`: read → compare →
//! check mode → mark → apply → outcome → probe after the reboot); `bad_argument`, option checks and
//! readers; running a command (`run`, `run_if_installed`) and reading it into its parser's type
//! (`run_parsed`, `parsed`: the one way, output that does not parse failing typed); a query whose
//! result is its parser's type end to end (`query_typed`, in `typed_query.rs`: journaled as the
//! type, a replayed result read back into it or refused naming the record, also when it has a field
//! the type does not keep, so a renamed optional field is not replayed as none) and a change's
//! result read back as its type the same way (`result_typed`); the typed error for output that does
//! not parse (`parse_failure`, `line_of`); a tool's own error as the failure (`tool_failure`);
//! names in normal form (`full_pci`, `valid_device`).

mod change;
mod names;
mod options;
mod parse_failure;
mod run;
mod tool_failure;
mod typed_query;

pub(crate) use change::{Change, Compared, Probe, builtin_name, not_applied};
pub(crate) use names::{full_pci, valid_device, valid_ifname};
pub(crate) use options::{arg_text, flag, from_dynamic, int, options_json, text};
pub(crate) use parse_failure::{line_of, parse_failure};
pub(crate) use run::{UNKNOWN_UNTIL_MFT, not_installed, parsed, run, run_if_installed, run_parsed};
pub(crate) use tool_failure::tool_failure;
pub use typed_query::unread_field;
pub(crate) use typed_query::{
    as_array, as_map, present, query_typed, query_typed_as, result_typed,
};

use cairn_runtime::{
    ActionCall, ActionError, BuiltinOptions, HostContext, HostIo, OptionKey, OptionType, Outcome,
    Reconcile,
};
use rhai::{Dynamic, EvalAltResult, NativeCallContext};
use serde_json::Value;

/// A builtin's result.
pub(crate) type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// Runs a read-only query builtin on the current host as an action (redone on resume),
/// journaled under its registered name (`namespace::name`, [`builtin_name`]).
pub(crate) fn query(
    ctx: &NativeCallContext,
    namespace: &str,
    args: Value,
    live: impl FnOnce(&mut HostIo<'_>) -> Result<Value, ActionError>,
) -> RhaiResult<Dynamic> {
    query_as(ctx, &builtin_name(ctx, namespace), args, live)
}

/// A read-only query journaled under a name of its own: a step inside a builtin
/// (`fabric::line_rate` inside `fabric::all_pairs`), not a builtin.
pub(crate) fn query_as(
    ctx: &NativeCallContext,
    builtin: &str,
    args: Value,
    live: impl FnOnce(&mut HostIo<'_>) -> Result<Value, ActionError>,
) -> RhaiResult<Dynamic> {
    act(
        ctx,
        ActionCall {
            args,
            assumed: Value::Null,
            builtin: builtin.into(),
            reconcile: Reconcile::Redo,
        },
        |io| live(io).map(Outcome::unchanged),
    )
}

/// Runs an action on the current host and gives its value to the script.
pub(crate) fn act(
    ctx: &NativeCallContext,
    call: ActionCall<'_>,
    live: impl FnOnce(&mut HostIo<'_>) -> Result<Outcome, ActionError>,
) -> RhaiResult<Dynamic> {
    let host = HostContext::current(ctx)?;
    let site = host.site(ctx);
    let value = host
        .perform(call, &site, live)
        .map_err(|e| host.fail(e, ctx.call_position()))?;
    rhai::serde::to_dynamic(value)
}

/// A builtin refusing an argument value (`MTU 0`), raised at the call.
pub(crate) fn bad_argument(ctx: &NativeCallContext, message: String) -> Box<EvalAltResult> {
    ActionError::Argument(message).raise(ctx.call_position())
}

/// A serializable value as JSON (`null` if it cannot be).
pub(crate) fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Checks a builtin's `#{...}` options against its declaration: an unknown key or a value of
/// the wrong type is a runbook error, never ignored.
pub(crate) fn check_options(
    ctx: &NativeCallContext,
    declared: &BuiltinOptions,
    options: &rhai::Map,
) -> RhaiResult<()> {
    declared
        .check(options)
        .map_err(|message| match HostContext::current(ctx) {
            Ok(host) => host.fail(ActionError::Runbook(message), ctx.call_position()),
            Err(error) => error,
        })
}

/// One option key, for the declarations.
pub(crate) const fn key(name: &'static str, kind: OptionType) -> OptionKey {
    OptionKey { name, kind }
}
