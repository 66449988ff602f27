//! A tool's output that does not parse, as the action's error: the command, the line number
//! and the line it stops at, so the operator sees what the host printed.

use cairn_runtime::{ActionError, OutputParse};

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

/// The error for `command`'s output `text` that its parser rejected with `error`: typed, so the
/// failure report shows the output at the parser's span.
pub(crate) fn parse_failure(
    command: &(impl CommandText + ?Sized),
    error: &crate::ParseError,
    text: &str,
) -> ActionError {
    let line = line_of(text, error.span.offset());
    let line_text = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
    let (output_name, output, span) = error.shown();
    ActionError::OutputParse(Box::new(OutputParse {
        command: command.command_text(),
        error: error.to_string(),
        expected: error.message.clone(),
        line,
        line_text: line_text.trim_end().to_owned(),
        output: output.to_owned(),
        output_name: output_name.to_owned(),
        span,
    }))
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

    /// A parse failure reaches the host's failure report typed: the report shows the tool's
    /// output with the parser's label at the line it stopped on.
    #[test]
    fn the_failure_report_shows_the_output_where_the_parse_stopped() {
        use cairn_runtime::{HostContext, HostFailure, Runbook};
        use rhai::NativeCallContext;

        const OUTPUT: &str = "CA 'mlx5_0'\n\tCA type: MT4119\n\tthis is not ibstat\n";
        let mut t =
            crate::test_support::TestHost::guests(&[("compute-01", "")], "compute-01").build();
        t.engine.register_fn(
            "garbled_ibstat",
            |ctx: NativeCallContext| -> crate::action::RhaiResult<()> {
                let host = HostContext::current(&ctx)?;
                let Err(error) = crate::ib::ibstat::parse(OUTPUT) else {
                    return Ok(());
                };
                Err(host.fail(parse_failure("ibstat", &error, OUTPUT), ctx.call_position()))
            },
        );
        let script = "let x = 1;\ngarbled_ibstat();\n";
        let Err(error) = t.engine.eval::<rhai::Dynamic>(script) else {
            panic!("the garbled output parsed");
        };
        let runbook = Runbook::from_text(std::path::Path::new("test.rhai"), script.to_owned());
        let failure = HostFailure::from_rhai(&t.host, &runbook, &error);
        assert!(
            failure
                .message
                .contains("`ibstat` output does not parse at line 3"),
            "{}",
            failure.message
        );
        let mut report = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .render_report(&mut report, &failure)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(report.contains("ibstat output"), "{report}");
        assert!(report.contains("this is not ibstat"), "{report}");
        assert!(
            report.contains("garbled_ibstat"),
            "the runbook span too: {report}"
        );
    }
}
