//! Spans inside TOML strings: from a range within a string's value to the file.

use std::ops::Range;

use miette::SourceSpan;

/// The span in `source` of `within` (a byte range of `value`), where `value` is the string that
/// TOML read from `outer`. When the string is written with escapes, or as a multi-line string,
/// offsets inside it cannot be mapped, and the whole string is the span.
pub(crate) fn string_span(
    source: &str,
    outer: Range<usize>,
    value: &str,
    within: Range<usize>,
) -> SourceSpan {
    let written = source.get(outer.clone()).unwrap_or_default();
    let start = if written == value {
        Some(outer.start)
    } else {
        let quoted = written.len() == value.len() + 2
            && written.get(1..written.len() - 1) == Some(value)
            && (written.starts_with('"') || written.starts_with('\''));
        quoted.then_some(outer.start + 1)
    };
    match start {
        Some(start) if within.end <= value.len() => {
            (start + within.start..start + within.end).into()
        }
        _ => outer.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_into_bare_quoted_and_escaped_strings() {
        let source = r#"a = "node[5-1]" b = node c = "no\u0064e""#;
        let span = string_span(source, 4..15, "node[5-1]", 5..8);
        assert_eq!(
            source.get(span.offset()..span.offset() + span.len()),
            Some("5-1")
        );
        let span = string_span(source, 20..24, "node", 0..2);
        assert_eq!(
            source.get(span.offset()..span.offset() + span.len()),
            Some("no")
        );
        let span = string_span(source, 29..40, "node", 0..2);
        assert_eq!((span.offset(), span.len()), (29, 11));
    }
}
