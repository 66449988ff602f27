//! The one error every parser returns: the tool, what was expected, and where in the output.

use miette::{Diagnostic, NamedSource, SourceSpan};
use pest::RuleType;
use pest::error::{ErrorVariant, InputLocation};

/// Output of a vendor tool that its parser could not read.
///
/// It carries the whole captured output so the diagnostic can show the offending line.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("`{tool}` output does not parse: {message}")]
#[diagnostic(code(cairn::stdlib::parse_error))]
pub struct ParseError {
    /// What the parser expected at the failing position, in words.
    pub message: String,
    /// The captured output, named after the tool.
    #[source_code]
    pub output: NamedSource<String>,
    /// Where in the output the parser stopped.
    #[label("{message}")]
    pub span: SourceSpan,
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
        let offset = offset.min(text.len());
        let len = len.min(text.len() - offset);
        Self {
            message: message.into(),
            output: NamedSource::new(format!("{tool} output"), text.to_owned()),
            span: SourceSpan::new(offset.into(), len),
            tool,
        }
    }

    /// Reads a number the grammar matched, or says at its span that it does not fit the type
    /// (a port `99999999999`, say).
    pub(crate) fn number<T: std::str::FromStr>(
        tool: &'static str,
        text: &str,
        span: pest::Span<'_>,
    ) -> Result<T, Self> {
        span.as_str().parse().map_err(|_| {
            let message = format!("`{}` is not a number in range", span.as_str());
            Self::at(tool, text, span.start(), span.end() - span.start(), message)
        })
    }

    /// As [`ParseError::number`], with the message naming what the number is (`port number`).
    pub(crate) fn named_number<T: std::str::FromStr>(
        tool: &'static str,
        text: &str,
        span: pest::Span<'_>,
        what: &str,
    ) -> Result<T, Self> {
        span.as_str().parse().map_err(|_| {
            let message = format!("{what} `{}` is out of range", span.as_str());
            Self::at(tool, text, span.start(), span.end() - span.start(), message)
        })
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
