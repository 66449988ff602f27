//! Reading a number the grammar matched: the grammar says it is digits, the reader says when it
//! does not fit the type (a port `99999999999`), as a [`ParseError`] at its span. One reader
//! for every parser, so the wording of a misfit is chosen, not re-typed.

use std::str::FromStr;

use pest::RuleType;
use pest::iterators::Pair;

use super::{ParseError, quote};

/// What a parser matched: a pair of its parse tree, or a span of one.
pub(crate) trait Matched<'i> {
    /// The matched text and where it is.
    fn matched(&self) -> pest::Span<'i>;
}

impl<'i, R: RuleType> Matched<'i> for Pair<'i, R> {
    fn matched(&self) -> pest::Span<'i> {
        self.as_span()
    }
}

impl<'i> Matched<'i> for pest::Span<'i> {
    fn matched(&self) -> pest::Span<'i> {
        *self
    }
}

/// How a reader says that the matched text is no value of the type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Misfit<'w> {
    /// "`x` is not a number".
    NotANumber,
    /// "`x` is not a number in range".
    NotInRange,
    /// "`x` is out of range".
    OutOfRange,
    /// "port number `x` is out of range".
    Named(&'w str),
}

impl Misfit<'_> {
    fn message(self, raw: &str) -> String {
        let raw = quote(raw);
        match self {
            Self::NotANumber => format!("`{raw}` is not a number"),
            Self::NotInRange => format!("`{raw}` is not a number in range"),
            Self::OutOfRange => format!("`{raw}` is out of range"),
            Self::Named(what) => format!("{what} `{raw}` is out of range"),
        }
    }
}

/// Reads the matched text as a `T`, saying `misfit` at its span when it does not fit.
pub(crate) fn read<'i, T: FromStr>(
    tool: &'static str,
    text: &str,
    at: &impl Matched<'i>,
    misfit: Misfit<'_>,
) -> Result<T, ParseError> {
    let span = at.matched();
    span.as_str()
        .parse()
        .map_err(|_| misfit_at(tool, text, span, misfit))
}

/// Reads a number, or says it is "not a number in range".
pub(crate) fn number<'i, T: FromStr>(
    tool: &'static str,
    text: &str,
    at: &impl Matched<'i>,
) -> Result<T, ParseError> {
    read(tool, text, at, Misfit::NotInRange)
}

/// Reads a number, naming what it is when it does not fit (`port number`).
pub(crate) fn named_number<'i, T: FromStr>(
    tool: &'static str,
    text: &str,
    at: &impl Matched<'i>,
    what: &str,
) -> Result<T, ParseError> {
    read(tool, text, at, Misfit::Named(what))
}

/// Reads a `u32` in `radix` (a `0x`/`0X` prefix allowed in base 16).
pub(crate) fn read_radix<'i>(
    tool: &'static str,
    text: &str,
    at: &impl Matched<'i>,
    radix: u32,
    misfit: Misfit<'_>,
) -> Result<u32, ParseError> {
    let span = at.matched();
    let raw = span.as_str();
    let digits = if radix == 16 {
        raw.strip_prefix("0x")
            .or_else(|| raw.strip_prefix("0X"))
            .unwrap_or(raw)
    } else {
        raw
    };
    u32::from_str_radix(digits, radix).map_err(|_| misfit_at(tool, text, span, misfit))
}

fn misfit_at(
    tool: &'static str,
    text: &str,
    span: pest::Span<'_>,
    misfit: Misfit<'_>,
) -> ParseError {
    let message = misfit.message(span.as_str());
    ParseError::at(tool, text, span.start(), span.end() - span.start(), message)
}

#[cfg(test)]
mod tests {
    use super::{Misfit, named_number, number, read, read_radix};

    fn span(text: &str, start: usize, end: usize) -> pest::Span<'_> {
        pest::Span::new(text, start, end).unwrap_or_else(|| panic!("no span {start}..{end}"))
    }

    #[test]
    fn a_number_that_does_not_fit_is_an_error_at_its_span() {
        let text = "port: 99999999999\n";
        let at = span(text, 6, 17);
        assert_eq!(number::<u64>("t", text, &at).ok(), Some(99_999_999_999));
        let error = number::<u32>("t", text, &at)
            .err()
            .map(|e| (e.span, e.message));
        assert_eq!(
            error,
            Some((
                (6, 11).into(),
                "`99999999999` is not a number in range".to_owned()
            ))
        );
        let error = named_number::<u16>("t", text, &at, "port number").err();
        assert_eq!(
            error.map(|e| e.message),
            Some("port number `99999999999` is out of range".to_owned())
        );
        let error = read::<u8>("t", text, &at, Misfit::NotANumber).err();
        assert_eq!(
            error.map(|e| e.message),
            Some("`99999999999` is not a number".to_owned())
        );
    }

    #[test]
    fn hex_takes_an_optional_prefix() {
        let text = "0x1f 1F 0xzz";
        let read = |s, e| read_radix("t", text, &span(text, s, e), 16, Misfit::NotANumber);
        assert_eq!(read(0, 4).ok(), Some(31));
        assert_eq!(read(5, 7).ok(), Some(31));
        assert_eq!(
            read(8, 12).err().map(|e| e.message),
            Some("`0xzz` is not a number".to_owned())
        );
    }
}
