//! A tool's output that does not parse, as the action's error: the command, the line number
//! and the line it stops at, so the operator sees what the host printed.

use cairn_runtime::ActionError;

/// What ran: a program's name or its whole argv.
pub(crate) trait CommandText {
    /// The command as the message shows it.
    fn command_text(&self) -> String;
}

impl CommandText for str {
    fn command_text(&self) -> String {
        self.to_owned()
    }
}

impl CommandText for [String] {
    fn command_text(&self) -> String {
        self.join(" ")
    }
}

impl CommandText for Vec<String> {
    fn command_text(&self) -> String {
        self.join(" ")
    }
}

/// The error for `command`'s output `text` that its parser rejected with `error`.
pub(crate) fn parse_failure(
    command: &(impl CommandText + ?Sized),
    error: &crate::ParseError,
    text: &str,
) -> ActionError {
    let line_number = line_of(text, error.span.offset());
    let line = text
        .lines()
        .nth(line_number.saturating_sub(1))
        .unwrap_or("");
    ActionError::Failed(format!(
        "`{}` output does not parse at line {line_number} (`{}`): {error}",
        command.command_text(),
        line.trim_end()
    ))
}

/// The 1-based line of byte `offset` in `text`: an offset just after a line break is on the
/// next line (counting `lines()` of the text before it would say the previous one).
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::{line_of, parse_failure};
    use crate::ParseError;

    #[test]
    fn a_failure_at_the_start_of_a_line_names_that_line() {
        let text = "first\nsecond\nthird\n";
        assert_eq!(line_of(text, 0), 1);
        assert_eq!(line_of(text, 6), 2, "offset 6 is the `s` of `second`");
        assert_eq!(line_of(text, 8), 2);
        assert_eq!(line_of(text, 13), 3);
        let error = ParseError::at("ibstat", text, 6, 6, "expected a port");
        let message = parse_failure("ibstat", &error, text).to_string();
        assert!(
            message.contains("at line 2 (`second`)"),
            "a failure at the start of line 2 names line 2: {message}"
        );
        let argv = vec!["esxcli".to_owned(), "nic".to_owned()];
        let message = parse_failure(&argv, &error, text).to_string();
        assert!(message.starts_with("`esxcli nic` output"), "{message}");
    }
}
