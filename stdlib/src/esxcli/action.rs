//! What the ESXi builtins share: running queries and changes as actions, turning parse failures
//! into errors that show the offending line, and reaching the management host.

use cairn_runtime::{ActionCall, ActionError, ExecOutput, HostContext, HostIo, Outcome, Reconcile};
use rhai::{Dynamic, EvalAltResult, NativeCallContext};
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

/// A failure in words before any action ran (a bad argument).
pub(crate) fn fail(ctx: &NativeCallContext, message: String) -> Box<EvalAltResult> {
    match HostContext::current(ctx) {
        Ok(host) => host.fail(ActionError::Failed(message), ctx.call_position()),
        Err(error) => error,
    }
}

/// Runs `argv`, failing on a non-zero exit.
pub(crate) fn run(io: &mut HostIo<'_>, argv: &[String]) -> Result<ExecOutput, ActionError> {
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    io.run(&argv)
}

/// Runs `argv`; `Ok(None)` when the program is not installed (exit 127).
pub(crate) fn run_if_installed(
    io: &mut HostIo<'_>,
    argv: &[String],
) -> Result<Option<ExecOutput>, ActionError> {
    let output = io.exec(&cairn_runtime::ExecRequest::new(argv.iter().cloned()))?;
    match output.code {
        0 => Ok(Some(output)),
        127 => Ok(None),
        code => Err(ActionError::CommandFailed {
            code,
            command: argv.join(" "),
            stderr: if output.stderr.trim().is_empty() {
                output.stdout
            } else {
                output.stderr
            },
        }),
    }
}

/// The error for a tool that is not installed on the host.
pub(crate) fn not_installed(program: &str, host: &str) -> ActionError {
    ActionError::Failed(format!(
        "`{program}` is not installed on `{host}`: install the MFT and NMST VIBs and reboot \
         (esxcli::vib_install, reboot_if_pending)"
    ))
}

/// A tool's output that does not parse, with the command and the line it stops at.
pub(crate) fn parse_failure(argv: &[String], error: &crate::ParseError, text: &str) -> ActionError {
    let offset = error.span.offset();
    let line_number = text
        .get(..offset)
        .map_or(1, |t| t.matches('\n').count() + 1);
    let line = text
        .lines()
        .nth(line_number.saturating_sub(1))
        .unwrap_or("");
    ActionError::Failed(format!(
        "`{}` output does not parse at line {line_number} (`{}`): {error}",
        argv.join(" "),
        line.trim_end()
    ))
}

/// A serializable value as JSON (`null` if it cannot be).
pub(crate) fn json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A script value as JSON.
pub(crate) fn from_dynamic(value: &Dynamic) -> RhaiResult<Value> {
    rhai::serde::from_dynamic(value)
}

/// A value given by the script as the text a command line takes: strings as they are, numbers
/// and booleans printed.
pub(crate) fn arg_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
