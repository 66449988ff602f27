//! Cutting a line to the terminal's width, counted in terminal columns (wide characters take
//! two), so a line never wraps under the status area. Piped output is never cut.

use std::borrow::Cow;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `line` cut to `width` columns with `…` as its last column; `None` leaves it whole.
pub fn cut_to_width(line: &str, width: Option<usize>) -> Cow<'_, str> {
    let Some(width) = width else {
        return Cow::Borrowed(line);
    };
    if line.width() <= width {
        return Cow::Borrowed(line);
    }
    let mut used = 0;
    let mut cut = String::with_capacity(width + 3);
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        cut.push(c);
    }
    if width > 0 {
        cut.push('…');
    }
    Cow::Owned(cut)
}

#[cfg(test)]
mod tests {
    use super::cut_to_width;
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn a_line_wider_than_the_terminal_ends_in_an_ellipsis_at_its_edge() {
        let line = "x".repeat(300);
        for width in [20, 80, 200] {
            let cut = cut_to_width(&line, Some(width));
            assert_eq!(cut.width(), width);
            assert!(cut.ends_with('…'));
        }
        assert_eq!(cut_to_width(&line, Some(300)), line);
        assert_eq!(cut_to_width(&line, None), line);
    }

    #[test]
    fn wide_characters_count_twice() {
        let cut = cut_to_width("日本語日本語", Some(7));
        assert!(cut.width() <= 7, "{cut}");
        assert!(cut.ends_with('…'));
    }
}
