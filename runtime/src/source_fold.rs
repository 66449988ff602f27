//! Source text for diagnostics with no line past what miette's renderer can draw.
//!
//! miette pads labels with `{:width$}`, which panics past column 65,535; an inventory key of
//! 70,000 characters made a typo crash the interpreter. Long lines are folded by turning one
//! ASCII character every [`FOLD_AT`] bytes into a line break: every byte keeps its offset, so
//! spans into the text stay right, and the renderer sees short lines.

/// The longest line a diagnostic shows unfolded, in bytes.
pub(crate) const FOLD_AT: usize = 4096;

/// `text` with lines longer than [`FOLD_AT`] bytes folded.
pub(crate) fn fold_long_lines(text: &str) -> String {
    if text.lines().all(|line| line.len() <= FOLD_AT) {
        return text.to_owned();
    }
    let mut bytes = text.as_bytes().to_vec();
    let mut since_break = 0;
    for byte in &mut bytes {
        if *byte == b'\n' {
            since_break = 0;
        } else if since_break >= FOLD_AT && byte.is_ascii() {
            *byte = b'\n';
            since_break = 0;
        } else {
            since_break += 1;
        }
    }
    // Only ASCII bytes changed, to another ASCII byte: the text is still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_long_lines_keeping_offsets() {
        let text = format!("a = 1\n{}\"b\"\n", "x".repeat(70_000));
        let folded = fold_long_lines(&text);
        assert_eq!(folded.len(), text.len());
        assert!(folded.lines().all(|l| l.len() <= FOLD_AT));
        assert_eq!(folded.find("\"b\""), text.find("\"b\""));
        assert_eq!(fold_long_lines("short\n"), "short\n");
    }
}
