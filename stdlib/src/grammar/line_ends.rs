//! Line ends: a captured output's lines may end in LF, CRLF or a lone CR (a terminal capture, a
//! serial console). The grammars and the walks after them count lines by LF; a lone CR read as
//! "inside the line" makes a whole output one line, which some walks rescan at every field
//! (`ibv_devinfo` of 1 MB took 20 s). Every output is therefore read with its lone CRs made LFs
//! first, once, before any parser sees it: one byte for one byte, so every offset and span the
//! parser reports is the same in the text as captured.

use std::borrow::Cow;

use crate::ParseError;

/// `text` with every CR that no LF follows made an LF; borrowed when it has none.
pub(crate) fn lone_cr_as_lf(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let lone = |i: usize| bytes.get(i) == Some(&b'\r') && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    for i in (0..bytes.len()).filter(|&i| lone(i)) {
        // A CR is one ASCII byte, so `i` and `i + 1` are character boundaries.
        out.push_str(&text[start..i]);
        out.push('\n');
        start = i + 1;
    }
    out.push_str(&text[start..]);
    Cow::Owned(out)
}

/// Reads `text` with `parse` whatever its line ends: the one way an output reaches a parser
/// (the table of tools, the builtins), so each grammar only knows LF and CRLF. A diagnostic
/// shows the output with its lone CRs as line breaks, at the same offsets.
pub(crate) fn read<T>(
    text: &str,
    parse: impl FnOnce(&str) -> Result<T, ParseError>,
) -> Result<T, ParseError> {
    parse(&lone_cr_as_lf(text))
}

#[cfg(test)]
mod tests {
    use super::lone_cr_as_lf;

    #[test]
    fn lone_crs_become_lfs_in_place_and_crlf_stays() {
        assert_eq!(lone_cr_as_lf("a\rb\r\nc\r"), "a\nb\r\nc\n");
        assert_eq!(lone_cr_as_lf("é\rü").len(), "é\rü".len());
        assert!(matches!(
            lone_cr_as_lf("a\r\nb\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(lone_cr_as_lf("\r\r\n\r"), "\n\r\n\n");
    }
}
