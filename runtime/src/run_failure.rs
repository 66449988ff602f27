//! A host's failure as a diagnostic: the message, the runbook span, and for a divergence the
//! journal record it contradicts.

use std::path::Path;

use miette::{Diagnostic, NamedSource, SourceSpan};
use rhai::{EvalAltResult, Position};

use crate::journal::RecordedAction;
use crate::{ActionError, HostContext, Runbook};

/// What kind of failure, for the exit code and the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailureKind {
    Cancelled,
    Diverged,
    NeedsDecision,
    Other,
    /// The runbook is wrong (an unknown function or option, a nested stage): exit 2.
    Runbook,
}

/// Why one host failed, pointing at the runbook line that failed.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("`{host}`: {message}")]
pub struct HostFailure {
    #[help]
    help: Option<String>,
    /// The host.
    pub host: String,
    kind: FailureKind,
    #[label("{label}")]
    label_span: Option<SourceSpan>,
    label: String,
    /// What failed.
    pub message: String,
    #[related]
    related: Vec<JournalLine>,
    #[source_code]
    source_code: NamedSource<String>,
}

/// A journal record that the runbook contradicts.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("the journal recorded `{builtin}` from {file}:{line}")]
#[diagnostic(severity(Advice))]
pub struct JournalLine {
    builtin: String,
    file: String,
    line: u32,
    #[source_code]
    source_code: NamedSource<String>,
    #[label("recorded here")]
    span: Option<SourceSpan>,
}

impl HostFailure {
    /// A failure with no runbook span.
    pub fn message(host: &str, message: String) -> Self {
        Self {
            help: None,
            host: host.to_owned(),
            kind: FailureKind::Other,
            label_span: None,
            label: String::new(),
            message,
            related: Vec::new(),
            source_code: NamedSource::new(host, String::new()),
        }
    }

    /// Whether the run was stopped rather than failed.
    pub fn cancelled(&self) -> bool {
        self.kind == FailureKind::Cancelled
    }

    /// Whether the runbook itself is wrong, as `cairn check` would say, rather than a host.
    pub fn runbook_error(&self) -> bool {
        self.kind == FailureKind::Runbook
    }

    /// Whether the runbook contradicts the journal.
    pub fn diverged(&self) -> bool {
        self.kind == FailureKind::Diverged
    }

    /// The message on one line, for the journal.
    pub fn one_line(&self) -> String {
        self.message.lines().collect::<Vec<_>>().join(" / ")
    }

    /// An action recorded without an outcome that the operator must settle.
    pub fn needs_decision(host: &str, journal: &Path, action: &RecordedAction) -> Self {
        let intent = &action.intent;
        let source = read_source(&intent.file);
        let span = span_at(&source, intent.line, intent.column);
        Self {
            help: Some(format!(
                "journal {} line {}",
                journal.display(),
                action.line
            )),
            host: host.to_owned(),
            kind: FailureKind::NeedsDecision,
            label_span: span,
            label: format!(
                "`{}` (action {}) started here; did it finish?",
                intent.builtin, intent.seq
            ),
            message: format!(
                "`{}` in stage `{}` started but its outcome was not recorded",
                intent.builtin, intent.stage
            ),
            related: Vec::new(),
            source_code: NamedSource::new(&intent.file, source),
        }
    }

    /// A failure from the rhai error a host's script ended with.
    pub fn from_rhai(host: &HostContext, runbook: &Runbook, error: &EvalAltResult) -> Self {
        let (inner, position, file) = innermost(error, &runbook.name());
        let file = crate::runbook::source_file(&runbook.name(), &file);
        let rhai_message = match inner {
            EvalAltResult::ErrorRuntime(value, _) => value.to_string(),
            other => {
                let text = other.to_string();
                text.rfind(" (line ")
                    .map_or(text.clone(), |at| text[..at].to_owned())
            }
        };
        let typed = host.take_failure(&rhai_message);
        let source = if file == runbook.name() {
            runbook.text.clone()
        } else {
            read_source(&file)
        };
        let span = span_at(
            &source,
            position.line().map_or(0, |l| u32::try_from(l).unwrap_or(0)),
            position
                .position()
                .map_or(0, |c| u32::try_from(c).unwrap_or(0)),
        );
        let mut failure = Self {
            help: None,
            host: host.info.name.clone(),
            kind: FailureKind::Other,
            label_span: span,
            label: "failed here".into(),
            message: host.redact_text(&rhai_message),
            related: Vec::new(),
            source_code: NamedSource::new(&file, source),
        };
        if matches!(
            inner,
            EvalAltResult::ErrorFunctionNotFound(..)
                | EvalAltResult::ErrorModuleNotFound(..)
                | EvalAltResult::ErrorVariableNotFound(..)
        ) {
            failure.kind = FailureKind::Runbook;
        }
        if let EvalAltResult::ErrorFunctionNotFound(signature, _) = inner {
            failure.help = crate::check::unit_argument_help(runbook, signature, position);
        }
        match typed {
            Some(ActionError::Cancelled(_)) => failure.kind = FailureKind::Cancelled,
            Some(error @ (ActionError::Runbook(_) | ActionError::OutsideStage(_))) => {
                failure.kind = FailureKind::Runbook;
                failure.help = help_for(&error);
            }
            Some(ActionError::NeedsDecision { .. }) => failure.kind = FailureKind::NeedsDecision,
            Some(ActionError::Diverged {
                journal,
                now,
                now_args,
                seq,
                then,
                ..
            }) => {
                failure.kind = FailureKind::Diverged;
                failure.label = format!("action {seq} is now `{now}({now_args})`");
                let what = if now == then.intent.builtin {
                    format!("it calls `{now}` with other arguments than the journal recorded")
                } else {
                    format!(
                        "it now calls `{now}` where the journal recorded `{}`",
                        then.intent.builtin
                    )
                };
                failure.message = format!(
                    "the runbook changed at action {seq} of stage `{}`: {what}",
                    then.intent.stage
                );
                failure.help = Some(format!(
                    "undo the edit to resume this run, or run the changed stage again: `cairn resume --from-stage \"{}\"` (the journal of this host is {journal})",
                    then.intent.stage
                ));
                let journal_text = std::fs::read_to_string(&journal).unwrap_or_default();
                failure.related.push(JournalLine {
                    builtin: format!("{}({})", then.intent.builtin, then.intent.args),
                    file: then.intent.file.clone(),
                    line: then.intent.line,
                    span: line_span(&journal_text, then.line),
                    source_code: NamedSource::new(journal, journal_text),
                });
            }
            Some(error) => failure.help = help_for(&error),
            None => {}
        }
        failure
    }
}

fn help_for(error: &ActionError) -> Option<String> {
    match error {
        ActionError::CommandFailed { .. } => {
            Some("pass #{ allow_fail: true } to `run` to accept a non-zero exit".into())
        }
        ActionError::OutsideStage(_) => {
            Some("wrap the call in `stage \"name\" on GROUP { ... }`".into())
        }
        ActionError::RebootTimeout { .. } => {
            Some("raise --reboot-timeout, or check the host's console".into())
        }
        ActionError::WouldDeadlock { help, .. } => Some(help.clone()),
        ActionError::NotApplied { .. } => Some(
            "another reboot would not apply it either: check the device (firmware version, a \
             setting it refuses), fix it, then `cairn resume`"
                .into(),
        ),
        _ => None,
    }
}

/// The innermost error of nested function and module calls, with its position and file.
fn innermost<'e>(error: &'e EvalAltResult, runbook: &str) -> (&'e EvalAltResult, Position, String) {
    let mut current = error;
    let mut file = runbook.to_owned();
    loop {
        match current {
            EvalAltResult::ErrorInFunctionCall(_, source, inner, _) => {
                if !source.is_empty() {
                    file.clone_from(source);
                }
                current = inner;
            }
            EvalAltResult::ErrorInModule(path, inner, _) => {
                file.clone_from(path);
                current = inner;
            }
            _ => return (current, current.position(), file),
        }
    }
}

fn read_source(file: &str) -> String {
    std::fs::read_to_string(file)
        .or_else(|_| std::fs::read_to_string(format!("{file}.rhai")))
        .unwrap_or_default()
}

/// The span of the token at a 1-based line and column.
fn span_at(text: &str, line: u32, column: u32) -> Option<SourceSpan> {
    let line = usize::try_from(line).ok().filter(|l| *l > 0)?;
    let column = usize::try_from(column).unwrap_or(1).max(1);
    let mut offset = 0;
    for (index, content) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            let start = content.char_indices().nth(column - 1).map_or(0, |(i, _)| i);
            let rest = content[start..].trim_end();
            let width = rest.find(['(', ' ', ';']).unwrap_or(rest.len()).max(1);
            return Some(SourceSpan::new((offset + start).into(), width));
        }
        offset += content.len();
    }
    None
}

fn line_span(text: &str, line: usize) -> Option<SourceSpan> {
    let mut offset = 0;
    for (index, content) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            return Some(SourceSpan::new(offset.into(), content.trim_end().len()));
        }
        offset += content.len();
    }
    None
}
