//! A tool's own error (docs/parsers.md, "Transcripts") as the reason a builtin fails: the
//! command, the tool's words and the line it printed them on, and the next step in the tool's
//! own words when it gave one.

use cairn_runtime::ActionError;

use crate::grammar::ToolError;

/// The failure of `command` that its output reports as `error`; `next` are the commands or
/// advice the tool printed (`Once the above issue(s) resolved, run: ...`), `fallback` the help
/// when it printed none.
pub(crate) fn tool_failure(
    command: &str,
    error: &ToolError,
    next: &[String],
    fallback: &str,
) -> ActionError {
    ActionError::Hinted {
        message: format!(
            "`{command}` failed ({}), output line {}: {}",
            error.kind, error.line, error.message
        ),
        help: if next.is_empty() {
            fallback.to_owned()
        } else {
            format!("the tool says to run: {}", next.join("; then "))
        },
    }
}
