//! A host's failure as a diagnostic: the message, the runbook span, and for a divergence the
//! journal record it contradicts.

use std::path::Path;

use miette::{Diagnostic, NamedSource, SourceSpan};
use rhai::{EvalAltResult, Position};

use crate::journal::{HostStatus, RecordedAction};
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
#[error("{who}: {message}")]
pub struct HostFailure {
    #[help]
    help: Option<String>,
    /// The host (the first of a group).
    pub host: String,
    /// The hosts this report stands for, `` `esx01` `` or `20 hosts: node[03-22]`.
    who: String,
    /// How many hosts this report stands for.
    host_count: usize,
    kind: FailureKind,
    #[label("{label}")]
    label_span: Option<SourceSpan>,
    label: String,
    /// What failed.
    pub message: String,
    #[related]
    related: Vec<Related>,
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

/// One call on the way to a failure inside a function: where the caller called it, in the
/// caller's file, up to the runbook's own line.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("called from {file}:{line}")]
#[diagnostic(severity(Advice))]
struct CalledFrom {
    file: String,
    line: usize,
    function: String,
    #[source_code]
    source_code: NamedSource<String>,
    #[label("`{function}` called here")]
    span: Option<SourceSpan>,
}

/// What a failure report shows beside the runbook span.
#[derive(Debug, thiserror::Error, Diagnostic)]
enum Related {
    /// A call on the way from the runbook to the failure, innermost first.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Called(CalledFrom),
    /// The journal record a divergence contradicts.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Journal(JournalLine),
    /// The tool output a parser stopped in.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Output(ToolOutput),
}

/// A tool's output where its parser stopped, from the typed [`ActionError::OutputParse`].
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("the output of `{command}`")]
#[diagnostic(severity(Advice))]
struct ToolOutput {
    command: String,
    expected: String,
    #[source_code]
    source_code: NamedSource<String>,
    #[label("{expected}")]
    span: SourceSpan,
}

impl HostFailure {
    /// Host `host` refused before its first action (`Transport::prepare`): the transport's
    /// reason, its help, and the code `cairn::runtime::host_refused` in the message, since the runbook
    /// never started there.
    pub fn refused(host: &str, error: &crate::TransportError) -> Self {
        use miette::Diagnostic;
        let (reason, help) = match error {
            crate::TransportError::Refused { reason, help, .. } => (reason.clone(), help.clone()),
            other => (other.to_string(), other.help().map(|h| h.to_string())),
        };
        Self {
            help,
            ..Self::message(
                host,
                format!("refused before its first action (cairn::runtime::host_refused): {reason}"),
            )
        }
    }

    /// A failure with no runbook span.
    pub fn message(host: &str, message: String) -> Self {
        Self {
            help: None,
            host: host.to_owned(),
            who: format!("`{host}`"),
            host_count: 1,
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

    /// The runbook file, line and column (1-based) the failure points at, if it has a span,
    /// so the journal's `host_end` can say where the host failed (`cairn report` shows it).
    pub fn location(&self) -> Option<(String, u32, u32)> {
        let offset = self.label_span?.offset();
        let before = self.source_code.inner().get(..offset)?;
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |at| at + 1) + 1;
        Some((
            self.source_code.name().to_owned(),
            u32::try_from(line).ok()?,
            u32::try_from(column).ok()?,
        ))
    }

    /// What makes two hosts' failures one report: the kind, the runbook span and labels, the
    /// message, and the journal records cited (by call, not by the journal they are in).
    pub(crate) fn group_key(&self) -> String {
        let related: Vec<String> = self
            .related
            .iter()
            .map(|r| match r {
                Related::Called(c) => format!("{}@{}:{}", c.function, c.file, c.line),
                Related::Journal(j) => format!("{}@{}:{}", j.builtin, j.file, j.line),
                Related::Output(o) => {
                    format!("{}@{}+{}", o.command, o.span.offset(), o.span.len())
                }
            })
            .collect();
        format!(
            "{:?}\u{1f}{}\u{1f}{:?}\u{1f}{}\u{1f}{}\u{1f}{}",
            self.kind,
            // A failure without a span is named after its host: only a span's file counts.
            self.label_span.map_or("", |_| self.source_code.name()),
            self.label_span.map(|s| (s.offset(), s.len())),
            self.label,
            self.message,
            related.join(";")
        )
    }

    /// This report standing for `hosts` (this one first). Where the hosts' help differs (it
    /// names each one's journal), the first host's is kept and says whose it is.
    pub(crate) fn shared_by(mut self, hosts: &[String], helps_differ: bool) -> Self {
        self.who = crate::host_range::describe_hosts(hosts);
        self.host_count = hosts.len();
        if helps_differ && let Some(help) = self.help.take() {
            self.help = Some(format!(
                "{help} (for `{}`; likewise for the others)",
                self.host
            ));
        }
        self
    }

    /// How many hosts this report stands for (more than one once grouped).
    pub fn host_count(&self) -> usize {
        self.host_count
    }

    /// The help text, if any.
    pub(crate) fn help_text(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The message on one line, for the journal.
    pub fn one_line(&self) -> String {
        self.message.lines().collect::<Vec<_>>().join(" / ")
    }

    /// An action answered `done` whose output was lost, at a site where the runbook reads it.
    pub fn unknown_result(host: &str, journal: &Path, action: &RecordedAction) -> Self {
        let intent = &action.intent;
        let mut failure = Self::needs_decision(host, journal, action);
        failure.label = format!(
            "the runbook reads what `{}` (action {}) returns; its output was lost",
            intent.builtin, intent.seq
        );
        failure.message = format!(
            "`{}` in stage `{}` was interrupted and its output was not recorded: `done` has no result to give the runbook",
            intent.builtin, intent.stage
        );
        failure
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
            who: format!("`{host}`"),
            host_count: 1,
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
        let calls = called_from(error, runbook);
        let typed = crate::raised_error::action_error_of(inner);
        let rhai_message = crate::raised_error::error_message(inner);
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
            who: format!("`{}`", host.info.name),
            host_count: 1,
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
        failure
            .related
            .extend(calls.into_iter().map(Related::Called));
        if let EvalAltResult::ErrorFunctionNotFound(signature, _) = inner {
            failure.help = crate::check::unit_argument_help(runbook, signature, position);
        }
        if let Some(typed) = typed {
            failure.read_typed(&typed);
        }
        failure
    }

    /// What the builtin's typed failure adds: its kind, its help, and the section beside the
    /// runbook span (the journal record a divergence contradicts, the output a parser stopped
    /// in).
    fn read_typed(&mut self, typed: &ActionError) {
        use miette::Diagnostic as _;
        match typed {
            ActionError::Cancelled(_) => self.kind = FailureKind::Cancelled,
            ActionError::Runbook(_) | ActionError::OutsideStage(_) => {
                self.kind = FailureKind::Runbook;
            }
            ActionError::NeedsDecision { .. } => self.kind = FailureKind::NeedsDecision,
            ActionError::Diverged {
                journal,
                now,
                now_args,
                seq,
                then,
                ..
            } => {
                self.kind = FailureKind::Diverged;
                self.label = format!("action {seq} is now `{now}({now_args})`");
                let what = if *now == then.intent.builtin {
                    format!("it calls `{now}` with other arguments than the journal recorded")
                } else {
                    format!(
                        "it now calls `{now}` where the journal recorded `{}`",
                        then.intent.builtin
                    )
                };
                self.message = format!(
                    "the runbook changed at action {seq} of stage `{}`: {what}",
                    then.intent.stage
                );
                self.help = Some(format!(
                    "undo the edit to resume this run, or run the changed stage again: `cairn resume --from-stage \"{}\"` (the journal of this host is {journal})",
                    then.intent.stage
                ));
                let journal_text = std::fs::read_to_string(journal).unwrap_or_default();
                self.related.push(Related::Journal(JournalLine {
                    builtin: format!("{}({})", then.intent.builtin, then.intent.args),
                    file: then.intent.file.clone(),
                    line: then.intent.line,
                    span: line_span(&journal_text, then.line),
                    source_code: NamedSource::new(journal, journal_text),
                }));
                return;
            }
            ActionError::OutputParse(parse) => {
                self.related.push(Related::Output(ToolOutput {
                    command: parse.command.clone(),
                    expected: parse.expected.clone(),
                    source_code: NamedSource::new(&parse.output_name, parse.output.clone()),
                    span: parse.span,
                }));
            }
            _ => {}
        }
        if let Some(help) = typed.help() {
            self.help = Some(help.to_string());
        }
    }
}

impl HostContext {
    /// Writes the host's last record for how its runbook ended: the failure's message and the
    /// runbook line it points at. Here, beside the failure it reads, so the host context below
    /// knows no failure report.
    pub fn end_with(
        &self,
        status: HostStatus,
        failure: Option<&HostFailure>,
    ) -> Result<(), ActionError> {
        let location = failure.and_then(HostFailure::location);
        self.end_at(status, failure.map(HostFailure::one_line), location)
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

/// The calls an error passed through on its way out, innermost first: each function's call
/// site in its caller's file, the last one the runbook's own line.
fn called_from(error: &EvalAltResult, runbook: &Runbook) -> Vec<CalledFrom> {
    let mut calls = Vec::new();
    let mut current = error;
    let mut caller = runbook.name();
    loop {
        let (function, callee, inner, position) = match current {
            EvalAltResult::ErrorInFunctionCall(function, source, inner, position) => {
                (function.clone(), source.clone(), inner, *position)
            }
            EvalAltResult::ErrorInModule(path, inner, _) => {
                caller.clone_from(path);
                current = inner;
                continue;
            }
            _ => break,
        };
        let file = crate::runbook::source_file(&runbook.name(), &caller);
        let source = if file == runbook.name() {
            runbook.text.clone()
        } else {
            read_source(&file)
        };
        let line = position.line().unwrap_or_default();
        let column = position.position().unwrap_or_default();
        calls.push(CalledFrom {
            span: span_at(
                &source,
                u32::try_from(line).unwrap_or(0),
                u32::try_from(column).unwrap_or(0),
            ),
            file: file.clone(),
            function,
            line,
            source_code: NamedSource::new(file, source),
        });
        if !callee.is_empty() {
            caller = callee;
        }
        current = inner;
    }
    calls.reverse();
    calls
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
