//! A runbook file: its text, its hash, and compiling it with errors that point at the line.

use std::path::{Path, PathBuf};

use miette::{Diagnostic, NamedSource, SourceSpan};
use rhai::{AST, Engine, Position};

/// A runbook as loaded from disk.
#[derive(Debug, Clone)]
pub struct Runbook {
    /// SHA-256 of `text`, hex; the journal records it to notice edits.
    pub hash: String,
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// `--lib DIR` and `CAIRN_PATH` folders its imports are looked up in last.
    pub lib_path: Vec<PathBuf>,
    /// The folder whose `lib/` its imports try after the importing file's folder, when it is
    /// not the one found from the runbook's place (a stored run's working copy, whose
    /// `source/` stands for the pack the run started in).
    pub import_root: Option<PathBuf>,
}

/// A runbook that cannot be read or compiled, or a script error at a runbook line.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(cairn::runtime::runbook))]
pub struct RunbookError {
    /// A hint for fixing it.
    #[help]
    pub help: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The runbook or module text.
    #[source_code]
    pub source_code: NamedSource<crate::source_fold::LongLines>,
    /// Where.
    #[label("here")]
    pub span: Option<SourceSpan>,
}

impl Runbook {
    /// Reads `path`.
    pub fn load(path: &Path) -> Result<Self, RunbookError> {
        let text = std::fs::read_to_string(path).map_err(|error| RunbookError {
            help: nearest_runbook(path),
            message: format!("cannot read runbook `{}`: {error}", path.display()),
            source_code: NamedSource::new(
                path.display().to_string(),
                crate::source_fold::LongLines::new(""),
            ),
            span: None,
        })?;
        Ok(Self::from_text(path, text))
    }

    /// A runbook from text, named `path`.
    pub fn from_text(path: &Path, text: String) -> Self {
        let hash = crate::sha256_hex(text.as_bytes());
        Self {
            hash,
            path: path.to_owned(),
            text,
            lib_path: Vec::new(),
            import_root: None,
        }
    }

    /// The runbook with `dirs` searched for imports after its own folder and its pack's `lib/`.
    pub fn with_lib_path(mut self, dirs: &[PathBuf]) -> Self {
        self.lib_path = dirs.to_vec();
        self
    }

    /// The runbook with its imports rooted at `root` instead of its pack (or its folder).
    pub fn with_import_root(mut self, root: Option<PathBuf>) -> Self {
        self.import_root = root;
        self
    }

    /// Where its imports resolve: beside the importing file, the pack's `lib/`, the lib path.
    pub fn imports(&self) -> crate::ImportPath {
        match &self.import_root {
            Some(root) => crate::ImportPath {
                root: root.clone(),
                search: self.lib_path.clone(),
            },
            None => crate::ImportPath::of_runbook(&self.path, &self.lib_path),
        }
    }

    /// The folder `import` resolves against.
    pub fn dir(&self) -> PathBuf {
        self.path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }

    /// The file name as journals and diagnostics show it.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// Compiles the runbook with `engine`.
    pub fn compile(&self, engine: &Engine) -> Result<AST, RunbookError> {
        let text = crate::param_docs::doc_comments_as_comments(&self.text);
        let mut ast = engine.compile(&*text).map_err(|error| {
            let (kind, position) = (error.err_type().to_string(), error.position());
            let mut error = self.error_at(format!("syntax error: {kind}"), position, None);
            if position.position() == Some(usize::from(u16::MAX)) {
                // rhai's columns stop at 65,535: find the token the message names past it.
                let token = kind.split('\'').nth(1).filter(|t| !t.is_empty());
                error.span = past_last_column(&self.text, position, token).or(error.span);
            }
            error
        })?;
        ast.set_source(self.name());
        Ok(ast)
    }

    /// An error at a position of this runbook.
    pub fn error_at(
        &self,
        message: String,
        position: Position,
        help: Option<String>,
    ) -> RunbookError {
        error_in(&self.name(), &self.text, message, position, help)
    }
}

/// An error at `position` of the file `name` whose text is `text`.
pub fn error_in(
    name: &str,
    text: &str,
    message: String,
    position: Position,
    help: Option<String>,
) -> RunbookError {
    RunbookError {
        help,
        message,
        source_code: NamedSource::new(name, crate::source_fold::LongLines::new(text)),
        span: span_of(text, position),
    }
}

/// The span of the token at a rhai position (1-based line and character column).
fn span_of(text: &str, position: Position) -> Option<SourceSpan> {
    let line = position.line()?;
    let column = position.position().unwrap_or(1).max(1);
    let mut offset = 0;
    for (index, content) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            let start = content
                .char_indices()
                .nth(column - 1)
                .map_or(content.len(), |(i, _)| i);
            let rest = &content[start..];
            // A string literal spans to its closing quote.
            let quoted = rest
                .strip_prefix('"')
                .and_then(|inner| inner.find('"'))
                .map(|end| end + 2);
            let width = quoted
                .or_else(|| {
                    rest.find(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ';' | ','))
                })
                .unwrap_or(rest.trim_end().len())
                .max(1)
                .min(rest.trim_end().len().max(1));
            return Some(SourceSpan::new((offset + start).into(), width));
        }
        offset += content.len();
    }
    None
}

/// The span of `token` on `position`'s line past column 65,535 (where rhai's positions stop),
/// or the rest of that line when the token is unknown.
fn past_last_column(text: &str, position: Position, token: Option<&str>) -> Option<SourceSpan> {
    let line = position.line()?;
    let start = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum::<usize>();
    let content = text[start..].split('\n').next()?;
    let last = content
        .char_indices()
        .nth(usize::from(u16::MAX) - 1)
        .map(|(i, _)| i)?;
    let (at, width) = match token.and_then(|t| content[last..].find(t).map(|i| (i, t.len()))) {
        Some((i, width)) => (last + i, width),
        None => (last, content.len() - last),
    };
    Some(SourceSpan::new((start + at).into(), width.max(1)))
}

/// The file behind a script source name: the runbook itself, an imported module (whose source
/// is its file, `imports.rs`), or a module named as a breakpoint names it (`guest` is
/// `lib/guest.rhai`, else `guest.rhai`, beside the runbook).
pub(crate) fn source_file(runbook_file: &str, source: &str) -> String {
    if source == runbook_file || source.is_empty() {
        return runbook_file.to_owned();
    }
    if source.ends_with(".rhai") && Path::new(source).is_file() {
        return source.to_owned();
    }
    let dir = Path::new(runbook_file).parent().unwrap_or(Path::new("."));
    let name = if source.ends_with(".rhai") {
        source.to_owned()
    } else {
        format!("{source}.rhai")
    };
    [dir.join("lib").join(&name), dir.join(&name)]
        .into_iter()
        .find(|candidate| candidate.exists())
        .map_or_else(|| source.to_owned(), |found| found.display().to_string())
}

/// `did you mean runbooks/mine.rhai?` for a path that is not there: the nearest `.rhai` file
/// in the folder it names (when that folder exists).
fn nearest_runbook(path: &Path) -> Option<String> {
    if path.exists() {
        return None;
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path.file_name()?.to_str()?;
    let names: Vec<String> = std::fs::read_dir(dir.unwrap_or(Path::new(".")))
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|file| file.ends_with(".rhai"))
        .collect();
    let near = crate::inventory::closest(name, names.iter().map(String::as_str))?;
    let near = dir.map_or_else(|| PathBuf::from(near), |d| d.join(near));
    Some(format!("did you mean `{}`?", near.display()))
}
