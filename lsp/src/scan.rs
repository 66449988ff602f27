//! What surrounds the cursor in a runbook's text, read without compiling it (the text being
//! typed seldom compiles): the word at the cursor, the call whose arguments it is in, whether
//! it is in that call's `#{...}` option map, in a string, or after `stage "..." on`.

/// An open bracket before the cursor.
#[derive(Debug, Clone)]
struct Open {
    /// `(`, `[`, `{`, or `#` for `#{`.
    bracket: char,
    /// Byte offset of the bracket.
    at: usize,
    /// Commas seen at this depth: the argument index inside `(`.
    commas: usize,
}

/// The cursor's surroundings.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Context {
    /// The innermost call the cursor is in the arguments of, and which argument (0-based).
    pub(crate) call: Option<(String, usize)>,
    /// The cursor is directly inside a `#{...}` map that is an argument of `call`.
    pub(crate) in_options: bool,
    /// The cursor is inside a string literal.
    pub(crate) in_string: bool,
}

/// Whether `c` can be part of a (possibly qualified) name.
fn name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == ':'
}

/// The name, `::` included, that ends at byte `end` of `text` (`mlxconfig::que`).
pub(crate) fn name_before(text: &str, end: usize) -> &str {
    let before = &text[..end];
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !name_char(*c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    &before[start..]
}

/// The whole name around byte `at` and where it starts, for hover and definitions.
pub(crate) fn name_around(text: &str, at: usize) -> Option<(usize, &str)> {
    let before = name_before(text, at);
    let after_len = text[at..]
        .find(|c: char| !name_char(c))
        .unwrap_or(text.len() - at);
    let start = at - before.len();
    let name = text[start..at + after_len].trim_matches(':');
    (!name.is_empty()).then_some((start, name))
}

/// The surroundings of byte `cursor` of `text`: one pass from the start, skipping strings and
/// comments, keeping the open brackets.
pub(crate) fn context(text: &str, cursor: usize) -> Context {
    let prefix = &text[..cursor];
    let mut stack: Vec<Open> = Vec::new();
    let mut chars = prefix.char_indices().peekable();
    let mut in_string = false;
    while let Some((at, c)) = chars.next() {
        match c {
            '"' | '`' | '\'' => in_string = !skip_literal(&mut chars, c),
            '/' if chars.peek().is_some_and(|(_, n)| *n == '/') => {
                for (_, n) in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek().is_some_and(|(_, n)| *n == '*') => {
                let mut last = ' ';
                for (_, n) in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
            }
            '#' if chars.peek().is_some_and(|(_, n)| *n == '{') => {
                chars.next();
                stack.push(Open {
                    bracket: '#',
                    at,
                    commas: 0,
                });
            }
            '(' | '[' | '{' => stack.push(Open {
                bracket: c,
                at,
                commas: 0,
            }),
            ')' | ']' | '}' => {
                stack.pop();
            }
            ',' => {
                if let Some(top) = stack.last_mut() {
                    top.commas += 1;
                }
            }
            _ => {}
        }
    }
    let mut context = Context {
        in_string,
        ..Context::default()
    };
    let mut opens = stack.iter().rev().peekable();
    context.in_options = opens.next_if(|open| open.bracket == '#').is_some()
        && opens.peek().is_some_and(|open| open.bracket == '(');
    // Inside an array or a map argument, the call is still the one around it.
    let call = opens.find(|open| !matches!(open.bracket, '[' | '#'));
    if let Some(open) = call.filter(|open| open.bracket == '(') {
        let name = name_before(text, open.at).trim_matches(':');
        if !name.is_empty() {
            context.call = Some((name.to_owned(), open.commas));
        }
    }
    context.in_options &= context.call.is_some();
    context
}

/// Skips a literal opened by `quote`; whether it closed before the text ended.
fn skip_literal(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>, quote: char) -> bool {
    while let Some((_, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == quote {
            return true;
        }
    }
    false
}

/// The line of `text` that byte `cursor` is on, up to the cursor.
pub(crate) fn line_before(text: &str, cursor: usize) -> &str {
    let start = text[..cursor].rfind('\n').map_or(0, |at| at + 1);
    &text[start..cursor]
}

/// Whether the cursor is where a stage's group goes: `stage "NAME" on gr|`.
pub(crate) fn after_stage_on(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix("stage") else {
        return false;
    };
    let Some((_, after)) = rest.rsplit_once(" on ") else {
        return false;
    };
    after.chars().all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_bar(text: &str) -> (String, usize) {
        let cursor = text.find('|').unwrap_or(text.len());
        (text.replacen('|', "", 1), cursor)
    }

    #[test]
    fn the_call_and_argument_at_the_cursor() {
        let (text, cursor) = at_bar("run([\"a\", \"b\"], #{ allow_fail: true, |");
        let found = context(&text, cursor);
        assert_eq!(found.call, Some(("run".into(), 1)));
        assert!(found.in_options);
        let (text, cursor) = at_bar("net::set_mtu(\"vmnic0\", |");
        let found = context(&text, cursor);
        assert_eq!(found.call, Some(("net::set_mtu".into(), 1)));
        assert!(!found.in_options);
        let (text, cursor) = at_bar("run([\"a\", |");
        assert_eq!(context(&text, cursor).call, Some(("run".into(), 0)));
    }

    #[test]
    fn strings_and_comments_do_not_open_brackets() {
        let (text, cursor) = at_bar("log(\"(\"); // run(\nlet x = |");
        assert_eq!(context(&text, cursor), Context::default());
        let (text, cursor) = at_bar("hosts(\"es|");
        let found = context(&text, cursor);
        assert!(found.in_string);
        assert_eq!(found.call, Some(("hosts".into(), 0)));
    }

    #[test]
    fn names_and_stage_groups() {
        let text = "x = mlxconfig::que";
        assert_eq!(name_before(text, text.len()), "mlxconfig::que");
        assert_eq!(
            name_around("a + vsphere::ports(x)", 9),
            Some((4, "vsphere::ports"))
        );
        assert!(after_stage_on("stage \"tune\" on es"));
        assert!(!after_stage_on("stage \"tune\" on esxi {"));
    }
}
