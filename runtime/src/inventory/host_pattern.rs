//! Host patterns: `node[01-16]` (zero padding kept), `node[1-3,7]`, `r[1-2]n[1-2]`.

use std::ops::Range;

use super::address::is_name_char;

/// The most hosts one pattern may expand to, so a typo cannot exhaust memory.
pub(crate) const MAX_HOSTS_PER_PATTERN: u64 = 100_000;

/// A pattern that does not expand: why, and the byte range within the pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PatternError {
    pub(crate) range: Range<usize>,
    pub(crate) reason: String,
}

/// The host names a pattern stands for, in order: the leftmost range varies slowest.
pub(crate) fn expand(pattern: &str) -> Result<Vec<String>, PatternError> {
    let error = |range: Range<usize>, reason: String| PatternError { range, reason };
    if pattern.is_empty() {
        return Err(error(0..0, "a host name cannot be empty".into()));
    }
    let mut parts: Vec<Vec<String>> = Vec::new();
    let mut literal = String::new();
    let mut count: u64 = 1;
    let mut chars = pattern.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '[' => {
                let body_start = at + 1;
                let Some(close) = pattern.get(body_start..).and_then(|rest| rest.find(']')) else {
                    return Err(error(
                        at..pattern.len(),
                        "`[` is never closed by `]`".into(),
                    ));
                };
                let body = pattern
                    .get(body_start..body_start + close)
                    .unwrap_or_default();
                let choices = choices(body, body_start)?;
                count = count.saturating_mul(choices.len() as u64);
                if count > MAX_HOSTS_PER_PATTERN {
                    let reason = format!("expands to more than {MAX_HOSTS_PER_PATTERN} hosts");
                    return Err(error(0..pattern.len(), reason));
                }
                parts.push(vec![std::mem::take(&mut literal)]);
                parts.push(choices);
                // Skip the body and the closing bracket.
                for _ in 0..=body.chars().count() {
                    chars.next();
                }
            }
            ']' => return Err(error(at..at + 1, "`]` without `[`".into())),
            c if is_name_char(c) => literal.push(c),
            c => {
                let reason = format!("{c:?} cannot appear in a host name");
                return Err(error(at..at + c.len_utf8(), reason));
            }
        }
    }
    parts.push(vec![literal]);
    let mut names = vec![String::new()];
    for part in parts {
        names = names
            .iter()
            .flat_map(|prefix| part.iter().map(move |choice| format!("{prefix}{choice}")))
            .collect();
    }
    Ok(names)
}

/// `01-16,20` (at `offset` in the pattern) as `["01", ..., "16", "20"]`.
fn choices(body: &str, offset: usize) -> Result<Vec<String>, PatternError> {
    let error = |range: Range<usize>, reason: &str| PatternError {
        range,
        reason: reason.into(),
    };
    if body.is_empty() {
        return Err(error(
            offset - 1..offset + 1,
            "empty range: write `[1-4]` or `[1,3]`",
        ));
    }
    let mut choices = Vec::new();
    let mut at = offset;
    for item in body.split(',') {
        let span = at..at + item.len();
        at += item.len() + 1;
        let (first, last) = item.split_once('-').unwrap_or((item, item));
        let number = |text: &str| -> Result<u64, PatternError> {
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(error(
                    span.clone(),
                    "expected a number or a range of numbers like `01-16`",
                ));
            }
            text.parse()
                .map_err(|_| error(span.clone(), "number too large"))
        };
        let (start, end) = (number(first)?, number(last)?);
        if start > end {
            return Err(error(
                span,
                "the range runs backwards: write the smaller number first",
            ));
        }
        if end - start >= MAX_HOSTS_PER_PATTERN {
            return Err(error(span, "the range is too large"));
        }
        let width = if first.len() > 1 && first.starts_with('0') {
            first.len()
        } else {
            0
        };
        choices.extend((start..=end).map(|n| format!("{n:0width$}")));
    }
    Ok(choices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_ranges_lists_and_products() {
        assert_eq!(expand("node01"), Ok(vec!["node01".to_owned()]));
        let padded = expand("node[01-16]").unwrap_or_default();
        assert_eq!(padded.len(), 16);
        assert_eq!(
            (padded[0].as_str(), padded[15].as_str()),
            ("node01", "node16")
        );
        assert_eq!(
            expand("node[1-3,7]").unwrap_or_default(),
            ["node1", "node2", "node3", "node7"]
        );
        assert_eq!(
            expand("r[1-2]n[1-2]").unwrap_or_default(),
            ["r1n1", "r1n2", "r2n1", "r2n2"]
        );
        assert_eq!(
            expand("n[098-100]").unwrap_or_default(),
            ["n098", "n099", "n100"]
        );
        assert_eq!(expand("[1-2]-gpu").unwrap_or_default(), ["1-gpu", "2-gpu"]);
    }

    #[test]
    fn points_at_what_is_wrong() {
        let cases = [
            ("node[5-1]", "5-1"),
            ("node[01-08", "[01-08"),
            ("node]", "]"),
            ("node[]", "[]"),
            ("node[1-x]", "1-x"),
            ("node[1,,2]", ""),
            ("no de", " "),
            ("node[1-2][0-99999]", "node[1-2][0-99999]"),
            ("node[0-99999999999999999999]", "0-99999999999999999999"),
            ("", ""),
        ];
        for (pattern, pointed) in cases {
            let result = expand(pattern);
            let range = result.as_ref().err().map(|e| e.range.clone());
            assert_eq!(
                range.and_then(|r| pattern.get(r)),
                Some(pointed),
                "{pattern}: {result:?}"
            );
        }
    }
}
