//! Completion, hints and multi-line input for the REPL.

use std::borrow::Cow;

use rustyline::completion::{Completer, Pair};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper, Highlighter};

/// What the completer knows: builtins, variables, fields of values in scope, hosts, commands.
#[derive(Default)]
pub(crate) struct Words {
    /// `mst::status`, `run`, ...
    pub(crate) builtins: Vec<String>,
    /// `:help`, `:use`, ...
    pub(crate) commands: Vec<&'static str>,
    /// Host names for `:use`.
    pub(crate) hosts: Vec<String>,
    /// Variables in scope, and the fields of map variables (`r.stdout`), each with the members
    /// its value's type has: a map's keys and methods, a string's or an array's methods.
    pub(crate) variables: Vec<(String, Vec<String>)>,
    /// Every method, for a receiver whose type is not known here (`f().`).
    pub(crate) methods: Vec<String>,
}

/// The rustyline helper.
#[derive(Highlighter)]
pub(crate) struct ReplHelper {
    history: HistoryHinter,
    /// Refreshed after every evaluation.
    pub(crate) words: Words,
}

impl ReplHelper {
    pub(crate) fn new() -> Self {
        Self {
            history: HistoryHinter::new(),
            words: Words::default(),
        }
    }

    /// Candidates for the word ending at the cursor.
    pub(crate) fn candidates(&self, line: &str) -> (usize, Vec<String>) {
        if let Some(host) = line.strip_prefix(":use ") {
            let found = self
                .words
                .hosts
                .iter()
                .filter(|h| h.starts_with(host.trim_start()))
                .cloned();
            return (line.len() - host.trim_start().len(), found.collect());
        }
        let start = line
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '.'))
            .map_or(0, |i| i + 1);
        let word = &line[start..];
        if start == 0 && word.starts_with(':') {
            let found = self
                .words
                .commands
                .iter()
                .filter(|c| c.starts_with(word))
                .map(|c| (*c).to_owned());
            return (0, found.collect());
        }
        if let Some((variable, field)) = word.rsplit_once('.') {
            // The members of the value's type, or every method when the value is not known.
            let fields = match self
                .words
                .variables
                .iter()
                .find(|(name, _)| name == variable)
            {
                Some((_, members)) => members.clone(),
                None => self.words.methods.clone(),
            };
            let at = start + variable.len() + 1;
            let mut found: Vec<String> = fields
                .into_iter()
                .filter(|k| k.starts_with(field))
                .collect();
            found.dedup();
            return (at, found);
        }
        let mut found: Vec<String> = self
            .words
            .builtins
            .iter()
            .chain(self.words.variables.iter().map(|(name, _)| name))
            .filter(|w| w.starts_with(word))
            .cloned()
            .collect();
        found.sort();
        found.dedup();
        (start, found)
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, words) = self.candidates(&line[..pos]);
        Ok((
            start,
            words
                .into_iter()
                .map(|w| Pair {
                    display: w.clone(),
                    replacement: w,
                })
                .collect(),
        ))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        self.history.hint(line, pos, ctx)
    }
}

impl Validator for ReplHelper {
    /// Input goes on over several lines while a brace, bracket, parenthesis or string is open.
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if is_open(ctx.input()) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ReplHelper {}

/// Whether `input` leaves a bracket or a string open.
pub(crate) fn is_open(input: &str) -> bool {
    let mut depth = 0i64;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in input.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '`' => quote = Some(c),
                '{' | '[' | '(' => depth += 1,
                '}' | ']' | ')' => depth -= 1,
                _ => {}
            },
        }
    }
    depth > 0 || quote.is_some()
}

/// Shown before the cursor.
pub(crate) fn prompt(host: &str, continuing: bool) -> Cow<'static, str> {
    if continuing {
        Cow::Borrowed("… ")
    } else {
        Cow::Owned(format!("{host}> "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> ReplHelper {
        let mut helper = ReplHelper::new();
        helper.words.builtins = vec![
            "mlxconfig::query".into(),
            "mlxconfig::set".into(),
            "mst::status".into(),
            "run".into(),
        ];
        helper.words.commands = vec![":help", ":hosts", ":quit"];
        helper.words.variables = vec![
            ("dev".into(), vec!["mst".into(), "pci".into()]),
            ("devs".into(), vec!["len".into(), "push".into()]),
        ];
        helper.words.methods = vec!["len".into(), "trimmed".into()];
        helper.words.hosts = vec!["esxi-01".into(), "esxi-02".into()];
        helper
    }

    #[test]
    fn completes_module_functions_fields_commands_and_hosts() {
        let h = helper();
        assert_eq!(
            h.candidates("mlxconfig::").1,
            vec!["mlxconfig::query", "mlxconfig::set"]
        );
        assert_eq!(h.candidates("let x = dev.p"), (12, vec!["pci".to_owned()]));
        assert_eq!(h.candidates("devs.p"), (5, vec!["push".to_owned()]));
        assert_eq!(h.candidates(":h").1, vec![":help", ":hosts"]);
        assert_eq!(h.candidates(":use esxi-0").1, vec!["esxi-01", "esxi-02"]);
        assert_eq!(h.candidates("f().tr"), (4, vec!["trimmed".to_owned()]));
        assert!(h.candidates("f().ru").1.is_empty(), "`run` is no method");
    }

    #[test]
    fn open_braces_and_strings_continue_the_input() {
        assert!(is_open("if x {"));
        assert!(is_open("let s = \"abc"));
        assert!(!is_open("let s = \"{\";"));
        assert!(!is_open("for d in devs { log(d); }"));
    }
}
