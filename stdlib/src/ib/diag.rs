//! Reading the lines every infiniband-diags tool may print besides its output (`diag.pest`):
//! warnings kept as messages, a fatal line as the tool's error (docs/parsers.md,
//! "Transcripts": a tool's own error is data).

use crate::ParseError;
use crate::grammar::{Message, ToolError};

/// Which of `diag.pest`'s lines a pair is, named by the tool's grammar that joined it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DiagKind {
    /// `ibwarn: ...` or libibnetdisc's `file.c:N; ...`: the tool went on.
    Warning,
    /// `ibpanic: ...`: the tool stopped.
    Panic,
    /// `PROG: iberror: ...`: the tool stopped; `PROG` is the program that printed it.
    Exit,
}

/// What a tool printed besides its output.
#[derive(Debug, Default)]
pub(crate) struct DiagLines {
    /// Each warning, with its line number.
    pub(crate) warnings: Vec<Message>,
    /// The first line that says the tool stopped.
    pub(crate) error: Option<ToolError>,
}

impl DiagLines {
    /// Files one line, `text` as printed (surrounding blanks dropped), on line `line`.
    pub(crate) fn file(&mut self, kind: DiagKind, text: &str, line: usize) {
        let text = text.trim();
        match kind {
            DiagKind::Warning => self.warnings.push(Message {
                line,
                text: text.to_owned(),
            }),
            DiagKind::Panic | DiagKind::Exit if self.error.is_none() => {
                self.error = Some(ToolError {
                    kind: if kind == DiagKind::Panic {
                        "ibpanic"
                    } else {
                        "iberror"
                    }
                    .to_owned(),
                    message: text.to_owned(),
                    line,
                })
            }
            // A second fatal line: kept, as the first one is the error.
            DiagKind::Panic | DiagKind::Exit => self.warnings.push(Message {
                line,
                text: text.to_owned(),
            }),
        }
    }

    /// Files a `PROG: iberror: ...` line printed as `text` on `line`; whether `PROG` is `tool`
    /// (the tool's own fatal line claims the output as the tool's).
    pub(crate) fn file_iberror(
        &mut self,
        text: &str,
        program: Option<&str>,
        tool: &str,
        line: usize,
    ) -> bool {
        self.file(DiagKind::Exit, text, line);
        program.is_some_and(|p| is_program(p, tool))
    }

    /// The warnings and the error filed, once the output was found to be `tool`'s (`own`);
    /// otherwise the refusal, saying what was `expected`.
    pub(crate) fn claimed(
        self,
        own: bool,
        tool: &'static str,
        text: &str,
        expected: &str,
    ) -> Result<(Vec<Message>, Option<ToolError>), ParseError> {
        if !own {
            return Err(ParseError::at(tool, text, 0, 0, expected));
        }
        Ok((self.warnings, self.error))
    }
}

/// Whether an `iberror` line's program is `tool` (`/usr/sbin/perfquery` too): a tool's own
/// fatal line is its output, another program's is not.
pub(crate) fn is_program(printed: &str, tool: &str) -> bool {
    printed.rsplit('/').next() == Some(tool)
}
