//! A host's journal read back: the recorded actions that replay answers from.

use std::collections::BTreeMap;
use std::path::Path;

use miette::{NamedSource, SourceSpan};
use serde_json::Value;

use super::{
    HostEndRecord, JOURNAL_VERSION, JournalError, JournalEvent, RecordedAction, RunHeader, order,
};

/// A host's journal, read back.
#[derive(Debug, Clone, Default)]
pub struct HostJournal {
    /// Recorded actions by sequence number; a later intent with the same number replaces an
    /// earlier one (a retry), a rewind drops the ones after it.
    pub actions: BTreeMap<u64, RecordedAction>,
    /// How the host last left the run, unless it was resumed since.
    pub end: Option<HostEndRecord>,
    /// Every record with its 1-based line number, for `cairn journal`.
    pub events: Vec<(usize, JournalEvent)>,
    /// The header.
    pub header: Option<RunHeader>,
    /// The file it was read from.
    pub path: std::path::PathBuf,
    /// The line number of a torn last line that was dropped.
    pub torn_line: Option<usize>,
}

impl HostJournal {
    /// Reads the journal at `path`.
    ///
    /// A torn last line (a crash during the write) is dropped and reported in `torn_line`; with
    /// `repair`, the file is also cut back to its last whole line so appends start clean. Any
    /// other line that is not a record is an error naming its line.
    pub fn load(path: &Path, repair: bool) -> Result<Self, JournalError> {
        Self::read(path, repair, true)
    }

    /// Reads the journal for a resume: repairs a torn tail, and keeps intents, outcomes and
    /// progress only in `actions`, not again in `events` (a resume never shows a timeline).
    pub fn load_for_resume(path: &Path) -> Result<Self, JournalError> {
        Self::read(path, true, false)
    }

    fn read(path: &Path, repair: bool, timeline: bool) -> Result<Self, JournalError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| JournalError::io(path, "cannot read journal", source))?;
        let mut journal = Self {
            path: path.to_owned(),
            ..Self::default()
        };
        let mut offset = 0;
        let mut good_end = 0;
        for (index, line) in text.split_inclusive('\n').enumerate() {
            let number = index + 1;
            let start = offset;
            offset += line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            if body.trim().is_empty() {
                good_end = offset;
                continue;
            }
            match serde_json::from_str::<JournalEvent>(body) {
                Ok(event) => {
                    if let Err(reason) = journal.apply(number, event, timeline) {
                        return Err(JournalError::OutOfOrder {
                            path: path.display().to_string(),
                            line: number,
                            reason,
                            source_code: NamedSource::new(path.display().to_string(), text.clone()),
                            span: SourceSpan::new(start.into(), body.len()),
                        });
                    }
                    good_end = offset;
                }
                Err(_) if offset == text.len() && !line.ends_with('\n') => {
                    journal.torn_line = Some(number);
                }
                Err(error) => {
                    return Err(JournalError::Corrupt {
                        path: path.display().to_string(),
                        line: number,
                        reason: error.to_string(),
                        source_code: NamedSource::new(path.display().to_string(), text.clone()),
                        span: SourceSpan::new(start.into(), body.len()),
                    });
                }
            }
        }
        if repair && (journal.torn_line.is_some() || !text.ends_with('\n') && !text.is_empty()) {
            cut_back(path, &text, good_end)?;
        }
        journal.check_header(path)?;
        Ok(journal)
    }

    fn check_header(&self, path: &Path) -> Result<(), JournalError> {
        let reason = match &self.header {
            // A file the process died before writing anything to is a journal not yet begun.
            None if self.events.is_empty() => return Ok(()),
            None => "it has no header record".to_owned(),
            Some(header) if header.version > JOURNAL_VERSION => format!(
                "it was written by a newer cairn (format {}, this one reads {JOURNAL_VERSION})",
                header.version
            ),
            Some(_) => return Ok(()),
        };
        Err(JournalError::Header {
            path: path.display().to_string(),
            reason,
        })
    }

    fn apply(&mut self, line: usize, event: JournalEvent, timeline: bool) -> Result<(), String> {
        if timeline {
            self.apply_action(line, event.clone())?;
            self.events.push((line, event));
            return Ok(());
        }
        match event {
            JournalEvent::Intent(_) | JournalEvent::Outcome(_) | JournalEvent::Progress(_) => {
                self.apply_action(line, event)
            }
            other => {
                self.apply_action(line, other.clone())?;
                self.events.push((line, other));
                Ok(())
            }
        }
    }

    /// Applies a record to the actions and the host's state, taking what it needs; a record
    /// out of the order cairn writes them in is refused with the reason (see [`order`]).
    fn apply_action(&mut self, line: usize, event: JournalEvent) -> Result<(), String> {
        order::check(&self.actions, &event)?;
        match event {
            JournalEvent::Header(header) => {
                // A later header begins a new session in the same file (the REPL's journals).
                if self.header.is_some() {
                    self.actions.clear();
                }
                self.header = Some(header);
            }
            JournalEvent::Intent(intent) => {
                let action = RecordedAction {
                    decision: None,
                    intent,
                    line,
                    outcome: None,
                    progress: Vec::new(),
                };
                self.actions.insert(action.intent.seq, action);
            }
            JournalEvent::Outcome(outcome) => {
                if let Some(action) = self.actions.get_mut(&outcome.seq) {
                    action.outcome = Some(outcome);
                }
            }
            JournalEvent::Progress(progress) => {
                if let Some(action) = self.actions.get_mut(&progress.seq) {
                    action.progress.push(progress.data);
                }
            }
            JournalEvent::Decision(decision) => {
                if let Some(action) = self.actions.get_mut(&decision.seq) {
                    action.decision = Some(decision.assume);
                }
            }
            JournalEvent::Rewind(rewind) => {
                self.actions.retain(|seq, _| *seq < rewind.seq);
                self.end = None;
            }
            JournalEvent::HostEnd(end) => self.end = Some(end),
            JournalEvent::Resume(_) => self.end = None,
            JournalEvent::Batch(_)
            | JournalEvent::Debug(_)
            | JournalEvent::Lease(_)
            | JournalEvent::Log(_)
            | JournalEvent::Stage(_)
            | JournalEvent::Wait(_) => {}
        }
        Ok(())
    }

    /// Values this host published, by key, from its recorded `publish` actions.
    pub fn published(&self) -> BTreeMap<String, Value> {
        self.actions
            .values()
            .filter(|action| action.intent.builtin == "publish")
            .filter_map(|action| {
                let key = action.intent.args.get("key")?.as_str()?.to_owned();
                Some((key, action.intent.args.get("value")?.clone()))
            })
            .collect()
    }

    /// Actions with an intent and no outcome, which a resume must reconcile.
    pub fn unfinished(&self) -> impl Iterator<Item = &RecordedAction> {
        self.actions
            .values()
            .filter(|action| action.outcome.is_none())
    }
}

fn cut_back(path: &Path, text: &str, good_end: usize) -> Result<(), JournalError> {
    let mut kept = text.get(..good_end).unwrap_or_default().to_owned();
    if !kept.is_empty() && !kept.ends_with('\n') {
        kept.push('\n');
    }
    crate::private_files::write_atomic(path, kept.as_bytes())
        .map_err(|source| JournalError::io(path, "cannot repair journal", source))
}
