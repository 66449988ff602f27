//! Columns of positions in a text, found without rescanning it from the start.
//!
//! pest's `Position::line_col` walks the input from its start on every call, so asking it for
//! every cell of a table is quadratic in the output's size; a cursor moves forward instead.

/// The column of byte offsets visited (mostly) in order, in one pass over their lines.
pub(crate) struct ColumnCursor<'a> {
    text: &'a str,
    offset: usize,
    column: usize,
}

impl<'a> ColumnCursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            offset: 0,
            column: 0,
        }
    }

    /// The column (0-based, in characters from the start of its line) of byte `offset`.
    pub(crate) fn column(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            // Back to the start of the line: costs that line only.
            let before = self.text.get(..offset).unwrap_or_default();
            self.offset = before.rfind('\n').map_or(0, |i| i + 1);
            self.column = 0;
        }
        let between = self.text.get(self.offset..offset).unwrap_or_default();
        self.column = match between.rfind('\n') {
            Some(i) => between[i + 1..].chars().count(),
            None => self.column + between.chars().count(),
        };
        self.offset = offset;
        self.column
    }
}

#[cfg(test)]
mod tests {
    use super::ColumnCursor;

    #[test]
    fn columns_forward_backward_and_across_lines() {
        let text = "ab cd\néf gh\n";
        let mut cursor = ColumnCursor::new(text);
        assert_eq!(cursor.column(3), 3);
        assert_eq!(cursor.column(1), 1);
        let g = text.find('g').unwrap_or_default();
        assert_eq!(cursor.column(g), 3);
        assert_eq!(cursor.column(text.len()), 0);
    }
}
