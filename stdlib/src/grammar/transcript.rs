//! What the transcript parsers share (docs/parsers.md, "Transcripts"): a tool that talks
//! (service scripts, interactive prompts, reset flows) is read as the lines its parser knows plus
//! [`Message`]s, each unknown line kept with its line number, never a refusal; and a tool's own
//! error is data, a [`ToolError`] with the tool's words and the line it printed them on.

use serde::{Deserialize, Serialize};

/// A line the parser does not know, kept as printed with where it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// The line number in the output, from 1.
    pub line: usize,
    /// The line without its surrounding blanks.
    pub text: String,
}

/// The tool's own report that it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    /// What failed, in one word the builtin and a runbook can match on.
    pub kind: String,
    /// The tool's words: the line that says it failed.
    pub message: String,
    /// The line number of `message`, from 1.
    pub line: usize,
}

impl ToolError {
    /// An error of `kind` that the tool printed on `line`.
    pub(crate) fn new(kind: &str, line: &Line<'_>) -> Self {
        Self {
            kind: kind.to_owned(),
            message: line.text.to_owned(),
            line: line.number,
        }
    }

    /// An error of `kind` that a grammar matched at `span` of `text` (a parser that reads its
    /// tool's error lines with pest rather than line by line).
    pub(crate) fn at_span(kind: &str, text: &str, span: pest::Span<'_>) -> Self {
        Self {
            kind: kind.to_owned(),
            message: span.as_str().trim().to_owned(),
            line: LineCounter::new(text).line_of(span.start()),
        }
    }
}

/// One line of an output, as the transcript parsers walk it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// From 1.
    pub(crate) number: usize,
    /// The byte offset of the line's start.
    pub(crate) offset: usize,
    /// The line without its line break and trailing blanks (leading blanks kept).
    pub(crate) raw: &'a str,
    /// The line without its surrounding blanks.
    pub(crate) text: &'a str,
}

impl Line<'_> {
    /// The line as a [`Message`].
    pub(crate) fn message(&self) -> Message {
        Message {
            line: self.number,
            text: self.text.to_owned(),
        }
    }

    /// Whether the line is blank.
    pub(crate) fn is_blank(&self) -> bool {
        self.text.is_empty()
    }
}

/// The lines of `text` with their numbers and offsets (`\r\n` endings and trailing blanks
/// dropped), in one pass.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    let mut offset = 0;
    text.split_inclusive('\n')
        .enumerate()
        .map(move |(index, chunk)| {
            let start = offset;
            offset += chunk.len();
            let raw = chunk.trim_end_matches(['\n', '\r', ' ', '\t']);
            Line {
                number: index + 1,
                offset: start,
                raw,
                text: raw.trim_start(),
            }
        })
}

/// Line numbers of byte offsets visited in order, counted forward in one pass (a pest parser's
/// `line_col` walks from the start on every call).
pub(crate) struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            offset: 0,
            line: 1,
        }
    }

    /// The line (from 1) of byte `offset`; an offset before the last one asked counts again
    /// from the start.
    pub(crate) fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            (self.offset, self.line) = (0, 1);
        }
        let between = self.text.get(self.offset..offset).unwrap_or_default();
        self.line += between.bytes().filter(|&b| b == b'\n').count();
        self.offset = offset;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::{LineCounter, lines};

    #[test]
    fn line_numbers_forward_and_back() {
        let text = "a\nb\nc\n";
        let mut counter = LineCounter::new(text);
        assert_eq!(counter.line_of(4), 3);
        assert_eq!(counter.line_of(2), 2);
        assert_eq!(counter.line_of(0), 1);
    }

    #[test]
    fn lines_keep_their_numbers_and_offsets_and_lose_their_ends() {
        let text = "a  \r\n\n  b\tc\t\nlast";
        let seen: Vec<(usize, usize, &str, &str)> = lines(text)
            .map(|l| (l.number, l.offset, l.raw, l.text))
            .collect();
        assert_eq!(
            seen,
            [
                (1, 0, "a", "a"),
                (2, 5, "", ""),
                (3, 6, "  b\tc", "b\tc"),
                (4, 13, "last", "last"),
            ]
        );
    }
}
