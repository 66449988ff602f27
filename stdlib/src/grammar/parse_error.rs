//! The one error every parser returns: the tool, what was expected, and where in the output.

use miette::{Diagnostic, NamedSource, SourceSpan};
use pest::RuleType;
use pest::error::{ErrorVariant, InputLocation};

/// Output of a vendor tool that its parser could not read.
///
/// It carries the captured output so the diagnostic can show the offending line. Lines longer
/// than [`SHOWN_LINE_CHARS`] are folded to a window around the span in the copy that is shown:
/// miette's graphical handler pads the label to the span's column and panics past column 65,535
/// (a 70,000-character line, or 20,000 tabs at four columns each).
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("`{tool}` output does not parse: {message}")]
#[diagnostic(code(cairn::stdlib::parse_error))]
pub struct ParseError {
    /// What the parser expected at the failing position, in words.
    pub message: String,
    /// The captured output as shown, named after the tool (long lines folded).
    #[source_code]
    pub output: NamedSource<String>,
    /// Where in the captured output (unfolded) the parser stopped.
    pub span: SourceSpan,
    /// `span`, moved into the folded `output`.
    #[label("{message}")]
    shown_span: SourceSpan,
    /// The parser's name, as `cairn parse` knows it.
    pub tool: &'static str,
}

impl ParseError {
    /// An error at a byte range of `text`, for checks made after the grammar matched.
    pub fn at(
        tool: &'static str,
        text: &str,
        offset: usize,
        len: usize,
        message: impl Into<String>,
    ) -> Self {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let len = len.min(text.len() - offset);
        let (shown, shown_offset, shown_len) = fold(text, offset, len);
        Self {
            message: shorten(&message.into(), SHOWN_MESSAGE_CHARS),
            output: NamedSource::new(format!("{tool} output"), shown),
            span: SourceSpan::new(offset.into(), len),
            shown_span: SourceSpan::new(shown_offset.into(), shown_len),
            tool,
        }
    }

    /// The output as a report shows it (long lines folded), its name, and the span in it.
    pub(crate) fn shown(&self) -> (&str, &str, SourceSpan) {
        (self.output.name(), self.output.inner(), self.shown_span)
    }

    /// Converts a pest failure, naming the rules that were expected in plain words.
    pub fn from_pest<R: RuleType>(
        tool: &'static str,
        text: &str,
        error: &pest::error::Error<R>,
    ) -> Self {
        let (offset, len) = match error.location {
            InputLocation::Pos(pos) => (pos, line_rest(text, pos)),
            InputLocation::Span((start, end)) => (start, end.saturating_sub(start)),
        };
        let message = match &error.variant {
            ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
                let names: Vec<String> = positives.iter().map(|rule| rule_words(rule)).collect();
                format!("expected {}", names.join(" or "))
            }
            ErrorVariant::ParsingError { .. } => "unexpected text".to_owned(),
            ErrorVariant::CustomError { message } => message.clone(),
        };
        Self::at(tool, text, offset, len, message)
    }
}

/// The length of the rest of the line at `pos`, so a label covers what could not be read.
fn line_rest(text: &str, pos: usize) -> usize {
    text.get(pos..)
        .map_or(0, |rest| rest.find('\n').unwrap_or(rest.len()))
}

/// `device_line` → `device line`.
fn rule_words<R: RuleType>(rule: &R) -> String {
    format!("{rule:?}").replace('_', " ")
}

/// The longest line shown as is; longer ones are cut to a window of about this many characters.
pub(crate) const SHOWN_LINE_CHARS: usize = 1000;
/// The longest message kept as is (a message may quote the text it rejects).
const SHOWN_MESSAGE_CHARS: usize = 400;
/// The longest quoted value in a message.
const QUOTED_CHARS: usize = 60;

/// A value for a message, cut to [`QUOTED_CHARS`] characters (a 70,000-digit "port number").
pub(crate) fn quote(value: &str) -> String {
    shorten(value, QUOTED_CHARS)
}

/// `text` cut to `max` characters, with `…` where it was cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `text` with every line longer than [`SHOWN_LINE_CHARS`] cut to a window (around the span on
/// the span's line, else its head), marked with `…`; returns it with the span moved into it.
/// The shown span ends on its first line. Line numbers are kept, and it is one pass over `text`.
fn fold(text: &str, offset: usize, len: usize) -> (String, usize, usize) {
    let mut shown = String::with_capacity(text.len().min(1 << 20));
    let (mut shown_offset, mut shown_len) = (0, 0);
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let has_span = (start <= offset && offset < end) || (offset == end && end == text.len());
        let at = offset.saturating_sub(start);
        let (from, to) = window(body, if has_span && at <= body.len() { at } else { 0 });
        if from > 0 {
            shown.push('…');
        }
        // Where `body[from]` lands in `shown`.
        let kept = shown.len();
        shown.push_str(&body[from..to]);
        if to < body.len() {
            shown.push('…');
        }
        let after_body = shown.len();
        shown.push_str(&line[body.len()..]);
        if has_span {
            if at >= body.len() {
                // On the line break itself (or at the end of the output).
                shown_offset = after_body + (at - body.len());
            } else {
                let span_start = at.clamp(from, to);
                let mut span_end = (at + len).clamp(span_start, to);
                while !body.is_char_boundary(span_end) {
                    span_end -= 1;
                }
                shown_offset = kept + (span_start - from);
                shown_len = span_end - span_start;
            }
        }
        start = end;
    }
    (shown, shown_offset, shown_len)
}

/// The byte range of `line` shown when `at` (a byte offset in it) must be visible.
fn window(line: &str, at: usize) -> (usize, usize) {
    if line.chars().nth(SHOWN_LINE_CHARS).is_none() {
        return (0, line.len());
    }
    let half = SHOWN_LINE_CHARS / 2;
    let at = at.min(line.len());
    let from = line[..at]
        .char_indices()
        .rev()
        .nth(half.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let to = line[from..]
        .char_indices()
        .nth(SHOWN_LINE_CHARS)
        .map_or(line.len(), |(i, _)| from + i);
    (from, to.max(at))
}

#[cfg(test)]
mod tests {
    use super::{ParseError, SHOWN_LINE_CHARS};

    fn rendered(error: &ParseError) -> String {
        let mut out = String::new();
        let handler =
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
        let _ = handler.render_report(&mut out, error);
        out
    }

    /// No rendered line is much wider than a folded line with its tabs expanded.
    fn narrow(out: &str) -> bool {
        out.lines()
            .all(|line| line.chars().count() < 5 * SHOWN_LINE_CHARS)
    }

    #[test]
    fn a_span_past_column_65535_renders_folded_around_it() {
        for run in ["x", "\t", "é"] {
            let text = format!("first\n{}BAD tail\nlast\n", run.repeat(70_000));
            let at = text.find("BAD").unwrap_or_default();
            let error = ParseError::at("ofed-info", &text, at, 3, "expected a version");
            assert_eq!(
                error.span.offset(),
                at,
                "the span stays on the captured output"
            );
            let out = rendered(&error);
            assert!(out.contains("BAD tail") && out.contains("│ …"), "{out}");
            assert!(out.contains("expected a version"), "{out}");
            assert!(narrow(&out), "{out}");
        }
    }

    #[test]
    fn long_context_lines_and_a_span_at_the_end_are_folded_too() {
        let text = format!("{}\n{}", "y".repeat(100_000), "\t".repeat(30_000));
        for at in [text.len(), 100_000, 50_000, 0] {
            let error = ParseError::at("mst-status", &text, at, 10, "unexpected text");
            let out = rendered(&error);
            assert!(out.contains("unexpected text"), "{at}: {out}");
            assert!(narrow(&out), "{at}: {out}");
        }
    }

    #[test]
    fn a_short_output_is_shown_as_it_is() {
        let text = "hca_id:\tmlx5_0\n\tfw_ver:\t\tbad\n";
        let error = ParseError::at("ibv-devinfo", text, 26, 3, "expected a version");
        assert!(rendered(&error).contains("fw_ver:\t\tbad") || rendered(&error).contains("bad"));
        let quoted = super::quote(&"9".repeat(70_000));
        assert!(
            quoted.chars().count() <= 61 && quoted.ends_with('…'),
            "{quoted}"
        );
    }
}
