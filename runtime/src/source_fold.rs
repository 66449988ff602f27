//! Source text for diagnostics with no line past what miette's renderer can draw.
//!
//! miette pads labels with `{:width$}`, which panics past column 65,535; an inventory key of
//! 70,000 characters made a typo crash the interpreter. [`LongLines`] hands miette, for a span
//! in a line longer than [`FOLD_AT`] bytes, only a window of that line around the span, with
//! the line's real number and the window's real column: the diagnostic names the true place
//! (`book.rhai:2:70015`) and draws a short line. Short lines are shown with their context.

use miette::{MietteError, MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents};

/// The longest line a diagnostic shows whole, in bytes.
pub(crate) const FOLD_AT: usize = 4096;

/// Bytes of a long line shown before the span.
const BEFORE: usize = 60;

/// A source file whose long lines are shown as a window around the span.
#[derive(Debug, Clone)]
pub struct LongLines(String);

impl LongLines {
    /// `text`, shown with windows over its long lines.
    pub fn new(text: &str) -> Self {
        Self(text.to_owned())
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.0
    }
}

/// A TOML file's text (an inventory, a config file) as the source its errors point into.
pub fn toml_source(name: impl AsRef<str>, text: &str) -> NamedSource<LongLines> {
    NamedSource::new(name, LongLines::new(text)).with_language("toml")
}

/// A TOML reader's error as a message and the span it points at (the file's start when it
/// names none).
pub fn toml_message(error: &toml::de::Error) -> (String, SourceSpan) {
    let span = error.span().unwrap_or(0..0).into();
    (error.message().trim_end().to_owned(), span)
}

impl SourceCode for LongLines {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text = self.0.as_str();
        let start = span.offset().min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        if line_end - line_start <= FOLD_AT && nearby_short(text, line_start, line_end) {
            return text.read_span(span, before, after);
        }
        let end = (start + span.len()).clamp(start, line_end);
        let mut from = if before == 0 && after == 0 {
            start
        } else {
            start.saturating_sub(BEFORE).max(line_start)
        };
        let mut to = (end + FOLD_AT / 2).min(line_end).max(from);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        while !text.is_char_boundary(to) {
            to += 1;
        }
        let line = text[..line_start].matches('\n').count();
        let column = text[line_start..from].chars().count();
        let window = SourceSpan::new(from.into(), to - from);
        Ok(Box::new(MietteSpanContents::new(
            &text.as_bytes()[from..to],
            window,
            line,
            column,
            1,
        )))
    }
}

/// Whether the lines around `line_start..line_end` (the context miette would show) are short.
fn nearby_short(text: &str, line_start: usize, line_end: usize) -> bool {
    let before = text[..line_start.saturating_sub(1)]
        .rsplit('\n')
        .next()
        .unwrap_or("");
    let after = text[line_end.min(text.len())..]
        .trim_start_matches('\n')
        .split('\n')
        .next()
        .unwrap_or("");
    before.len() <= FOLD_AT && after.len() <= FOLD_AT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_in_a_long_line_is_shown_at_its_real_line_and_column_in_a_short_window() {
        let text = format!("a = 1\nb = {}@\nc\n", " ".repeat(70_000));
        let at = text.find('@').unwrap_or_default();
        let source = LongLines::new(&text);
        let span = SourceSpan::new(at.into(), 1);
        let exact = source
            .read_span(&span, 0, 0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((exact.line(), exact.column()), (1, 70_004));
        let shown = source
            .read_span(&span, 1, 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(shown.data().len() <= FOLD_AT, "{}", shown.data().len());
        assert!(shown.data().ends_with(b"@"));
        assert_eq!(shown.line(), 1);
    }

    #[test]
    fn short_lines_keep_their_context() {
        let source = LongLines::new("one\ntwo\nthree\n");
        let shown = source
            .read_span(&SourceSpan::new(4.into(), 3), 1, 1)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(shown.data(), b"one\ntwo\nthree\n");
    }
}
