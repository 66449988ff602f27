//! Byte offsets in a text and LSP positions (0-based line, column in UTF-16 code units, the
//! protocol's default encoding) each way.

use lsp_types::{Position, Range};

/// The byte offset of `position` in `text`, clamped to its line's end and to the text's end.
pub(crate) fn offset_at(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(at) => line_start += at + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |at| line_start + at);
    let mut units = 0;
    for (at, c) in text[line_start..line_end].char_indices() {
        if units >= position.character as usize {
            return line_start + at;
        }
        units += c.len_utf16();
    }
    line_end
}

/// The position of byte `offset` in `text`.
pub(crate) fn position_at(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    Position::new(count(before.matches('\n').count()), count(character))
}

/// The range of bytes `start..end` in `text`.
pub(crate) fn range_of(text: &str, start: usize, end: usize) -> Range {
    Range::new(position_at(text, start), position_at(text, end))
}

/// The whole of 0-based line `line`.
pub(crate) fn line_range(text: &str, line: usize) -> Range {
    let content = text.lines().nth(line).unwrap_or("");
    let width: usize = content.chars().map(char::len_utf16).sum();
    Range::new(
        Position::new(count(line), 0),
        Position::new(count(line), count(width)),
    )
}

/// A count as the protocol's `u32`, saturating (a text past 4 GiB is no runbook).
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let text = "let a = 1;\nlog(\"é😀x\");\n";
        let x = text.find('x').unwrap_or_default();
        let at = position_at(text, x);
        assert_eq!(at, Position::new(1, 8), "é is one unit, 😀 two");
        assert_eq!(offset_at(text, at), x);
        assert_eq!(offset_at(text, Position::new(0, 99)), 10);
        assert_eq!(offset_at(text, Position::new(9, 0)), text.len());
    }
}
