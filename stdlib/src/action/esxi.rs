//! What the ESXi builtins share beyond `crate::action`: commands that need MFT installed, turning
//! parse failures into errors that show the offending line, and reaching the management host.

use cairn_runtime::{ActionError, ExecOutput, HostIo};
use rhai::Dynamic;
use serde_json::Value;

pub(crate) use crate::action::{RhaiResult, act, fail, json, query};

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
