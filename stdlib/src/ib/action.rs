//! What the guest builtins share: running a query or a change as an action, reading options,
//! and turning parse failures into action errors.

use cairn_runtime::{ActionCall, ActionError, HostContext, HostIo, Outcome, Reconcile};
use rhai::{Dynamic, EvalAltResult, Map, NativeCallContext};
use serde_json::Value;

/// A builtin's result.
pub(crate) type RhaiResult<T> = Result<T, Box<EvalAltResult>>;

/// Runs a read-only query on the current host as an action (redone on resume).
pub(crate) fn query(
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

/// A failure in words, as the script sees it, keeping the typed error for the report.
pub(crate) fn fail(ctx: &NativeCallContext, message: String) -> Box<EvalAltResult> {
    match HostContext::current(ctx) {
        Ok(host) => host.fail(ActionError::Failed(message), ctx.call_position()),
        Err(error) => error,
    }
}

/// A tool's output that does not parse, with the line it stops at.
pub(crate) fn parse_failure(tool: &str, error: &crate::ParseError, text: &str) -> ActionError {
    let offset = error.span.offset();
    let line_number = text.get(..offset).map_or(1, |t| t.lines().count().max(1));
    let line = text
        .lines()
        .nth(line_number.saturating_sub(1))
        .unwrap_or("");
    ActionError::Failed(format!(
        "`{tool}` output does not parse at line {line_number} (`{}`): {error}",
        line.trim_end()
    ))
}

/// A serializable value as JSON (`null` if it cannot be).
pub(crate) fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// An option of a builtin's `#{...}` map, as JSON.
pub(crate) fn options_json(options: &Map) -> RhaiResult<Value> {
    rhai::serde::from_dynamic(&Dynamic::from_map(options.clone()))
}

/// A boolean option.
pub(crate) fn flag(options: &Value, key: &str, default: bool) -> bool {
    options.get(key).and_then(Value::as_bool).unwrap_or(default)
}

/// An integer option.
pub(crate) fn int(options: &Value, key: &str) -> Option<i64> {
    options.get(key).and_then(|v| {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
    })
}

/// A text option.
pub(crate) fn text(options: &Value, key: &str) -> Option<String> {
    options.get(key).and_then(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}
