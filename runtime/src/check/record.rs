//! A diagnostic as editors and CI annotations read it (`cairn check --format json`, the
//! language server): the file it is in, where (1-based line and column, in characters, as
//! compilers print them), its code, message and help.

use miette::Diagnostic;
use serde::Serialize;

/// One diagnostic, located in the file's real text (not in the folded text miette renders).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckRecord {
    /// `error` or `warning`.
    pub severity: &'static str,
    /// The file, as the diagnostic names it.
    pub file: String,
    /// 1-based line of the span's start; `None` when the diagnostic has no span.
    pub line: Option<usize>,
    /// 1-based column of the span's start, in characters.
    pub column: Option<usize>,
    /// 1-based line of the span's end.
    pub end_line: Option<usize>,
    /// 1-based column just past the span's end, in characters.
    pub end_column: Option<usize>,
    /// The diagnostic's code (`cairn::runtime::runbook`).
    pub code: Option<String>,
    /// What is wrong.
    pub message: String,
    /// How to fix it (a did-you-mean), if the diagnostic says.
    pub help: Option<String>,
    /// The span as byte offsets into the file's text, for editors that count otherwise.
    #[serde(skip)]
    pub bytes: Option<(usize, usize)>,
}

impl CheckRecord {
    /// `diagnostic` located in `text`, the real text of the file it names, or else in the
    /// text it carries; `file` names it when it carries no source.
    pub fn of(diagnostic: &dyn Diagnostic, file: &str, text: Option<&str>) -> Self {
        let span = diagnostic
            .labels()
            .and_then(|mut labels| labels.next())
            .map(|label| (label.offset(), label.offset() + label.len()));
        let carried = diagnostic.source_code().and_then(|source| {
            let contents = source.read_span(&(0, 0).into(), 0, 0).ok()?;
            let name = contents.name().map(str::to_owned);
            let whole = source.read_span(&(0, 0).into(), 0, usize::MAX).ok()?;
            let text = String::from_utf8_lossy(whole.data()).into_owned();
            Some((name, text))
        });
        let file = carried
            .as_ref()
            .and_then(|(name, _)| name.clone())
            .unwrap_or_else(|| file.to_owned());
        let text = text.map(str::to_owned).or(carried.map(|(_, text)| text));
        let at = |offset| text.as_deref().map(|text| line_column(text, offset));
        let start = span.and_then(|(start, _)| at(start));
        let end = span.and_then(|(_, end)| at(end));
        Self {
            severity: "error",
            file,
            line: start.map(|(line, _)| line),
            column: start.map(|(_, column)| column),
            end_line: end.map(|(line, _)| line),
            end_column: end.map(|(_, column)| column),
            code: diagnostic.code().map(|code| code.to_string()),
            message: diagnostic.to_string(),
            help: diagnostic.help().map(|help| help.to_string()),
            bytes: span,
        }
    }

    /// A warning about `file` with no span.
    pub fn warning(file: &str, message: String) -> Self {
        Self {
            severity: "warning",
            file: file.to_owned(),
            line: None,
            column: None,
            end_line: None,
            end_column: None,
            code: None,
            message,
            help: None,
            bytes: None,
        }
    }
}

/// The 1-based line and character column of byte `offset` in `text` (clamped to its end).
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Runbook;

    #[test]
    fn a_span_past_a_folded_line_is_located_in_the_real_text() {
        let long = "x".repeat(5_000);
        let text = format!("let a = 1;\nlet b = \"{long}\"; @\n");
        let runbook = Runbook::from_text(std::path::Path::new("mine.rhai"), text.clone());
        let engine = crate::build_engine(
            &crate::ImportPath::at(std::path::Path::new(".")),
            &[],
            u64::MAX,
        );
        let Err(error) = runbook.compile(&engine) else {
            panic!("`@` must not compile");
        };
        let record = CheckRecord::of(&error, "mine.rhai", Some(&text));
        assert_eq!(record.file, "mine.rhai");
        assert_eq!(record.line, Some(2), "{record:?}");
        assert_eq!(record.column, Some(5_013), "{record:?}");
        assert!(record.message.contains("syntax error"), "{record:?}");
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_column("ab\nçé x", 8), (2, 4));
        assert_eq!(line_column("ab", 99), (1, 3));
    }
}
