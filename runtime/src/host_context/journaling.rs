//! What the host context writes to its journal and reports as events: an action's outcome,
//! progress records, log lines and the host's last record, always redacted first.

use std::time::Instant;

use serde_json::Value;

use super::{HostContext, Mode};
use crate::journal::{
    HostEndRecord, HostStatus, JournalEvent, LogRecord, OutcomeRecord, ProgressRecord, now_millis,
};
use crate::{ActionError, CallSite, Outcome, RunEvent};

impl HostContext {
    /// Records an outcome (unless the action's fate is unknown) and reports it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn finish(
        &self,
        seq: u64,
        builtin: &str,
        site: &CallSite,
        args: &Value,
        result: Result<Outcome, ActionError>,
        elapsed_ms: u64,
        how: Option<&str>,
    ) -> Result<Value, ActionError> {
        let summary = summarize(builtin, args);
        if let Err(error) = &result
            && error.outcome_unknown()
        {
            return result.map(|o| o.value);
        }
        let (ok, changed, reboot_required, value, error) = match &result {
            Ok(outcome) => (
                true,
                outcome.changed,
                outcome.reboot_required,
                outcome.value.clone(),
                None,
            ),
            Err(error) => (
                false,
                false,
                false,
                Value::Null,
                Some(self.redact_text(&error.to_string())),
            ),
        };
        let (shown, secrets) = crate::secrets::redactor().marked(value);
        let record = OutcomeRecord {
            at: now_millis(),
            changed,
            elapsed_ms,
            error: error.clone(),
            how: how.map(str::to_owned),
            ok,
            reboot_required,
            result: shown,
            secrets,
            seq,
        };
        let (finished_at, result_shown) = (record.at, record.result.clone());
        self.append(&JournalEvent::Outcome(record), true)?;
        if let (Some(_), Ok(outcome)) = (&self.debugger, &result) {
            self.state()
                .stage_results
                .insert(seq, outcome.value.clone());
        }
        self.settle(builtin, site, reboot_required, ok);
        if changed {
            self.state().changes.push(summary.clone());
        }
        let stage = self
            .state()
            .stage
            .as_ref()
            .map(|s| s.name.clone())
            .unwrap_or_default();
        self.shared.events.send(RunEvent::ActionFinished {
            arguments: args.clone(),
            builtin: builtin.to_owned(),
            changed,
            elapsed_ms,
            error,
            file: site.file.clone(),
            host: self.info.name.clone(),
            line: site.line,
            ok,
            replayed: false,
            result: result_shown,
            seq,
            stage,
            started_at: finished_at.saturating_sub(elapsed_ms),
            summary,
        });
        result.map(|outcome| outcome.value)
    }

    /// Updates what the host owes: a reboot after a staged change, none after a reboot.
    pub(super) fn settle(&self, builtin: &str, site: &CallSite, reboot_required: bool, ok: bool) {
        let mut state = self.state();
        if builtin == "reboot" && ok {
            state.reboot_pending.clear();
        } else if reboot_required {
            let why = format!("`{builtin}` at {}:{}", site.file, site.line);
            state.reboot_pending.push((builtin.to_owned(), why));
        }
    }

    pub(crate) fn record_progress(&self, seq: u64, data: Value) -> Result<(), ActionError> {
        let record = ProgressRecord {
            at: now_millis(),
            data: self.redact(data),
            seq,
        };
        self.append(&JournalEvent::Progress(record), true)
    }

    /// Progress records written in turn and fsynced once, after the last: a sync makes every
    /// write before it durable, so each record is as durable as with its own sync by the time
    /// this returns. A crash before the sync may lose them (or tear the last), which a resume
    /// reads as steps not taken.
    pub(crate) fn record_progress_all(
        &self,
        seq: u64,
        data: Vec<Value>,
    ) -> Result<(), ActionError> {
        let last = data.len().saturating_sub(1);
        for (i, data) in data.into_iter().enumerate() {
            let record = ProgressRecord {
                at: now_millis(),
                data: self.redact(data),
                seq,
            };
            self.append(&JournalEvent::Progress(record), i == last)?;
        }
        Ok(())
    }

    /// Logs a line: reported, and journaled unless it is being replayed.
    pub fn log(&self, message: String) -> Result<(), ActionError> {
        if self.mode == Mode::Verify || self.replaying() {
            return Ok(());
        }
        let message = self.redact_text(&message);
        let stage = self.state().stage.as_ref().map(|s| s.name.clone());
        let record = LogRecord {
            at: now_millis(),
            message: message.clone(),
            stage,
        };
        self.append(&JournalEvent::Log(record), false)?;
        self.shared.events.send(RunEvent::Log {
            host: self.info.name.clone(),
            message,
        });
        Ok(())
    }

    /// Writes the host's last record.
    pub fn end(&self, status: HostStatus, error: Option<String>) -> Result<(), ActionError> {
        self.end_at(status, error, None)
    }

    /// Writes the host's last record, with the runbook line its failure points at.
    pub(crate) fn end_at(
        &self,
        status: HostStatus,
        error: Option<String>,
        location: Option<(String, u32, u32)>,
    ) -> Result<(), ActionError> {
        if self.mode == Mode::Verify {
            return Ok(());
        }
        let reboot_pending = self.reboot_pending();
        let error = error.map(|e| self.redact_text(&e));
        let (file, line, column) = match location {
            Some((file, line, column)) => (Some(file), Some(line), Some(column)),
            None => (None, None, None),
        };
        let record = HostEndRecord {
            at: now_millis(),
            column,
            error: error.clone(),
            file,
            line,
            reboot_pending: reboot_pending.clone(),
            status,
        };
        self.append(&JournalEvent::HostEnd(record), true)?;
        self.shared.events.send(RunEvent::HostFinished {
            error,
            host: self.info.name.clone(),
            reboot_pending,
            status,
        });
        Ok(())
    }

    pub(crate) fn append(&self, event: &JournalEvent, durable: bool) -> Result<(), ActionError> {
        match self
            .journal
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_mut()
        {
            Some(writer) => writer.append(event, durable).map_err(|error| {
                // Without its journal this host cannot go on, and the others must not pass the
                // next barrier without it: the whole run stops, as on Ctrl-C. A host the shared
                // store fenced stops alone, at once: its lease is another controller's now.
                if error.ends_host() {
                    self.shared.events.send(RunEvent::Warning {
                        host: self.info.name.clone(),
                        message: format!("{error}: this host stops"),
                    });
                } else if !self.shared.cancel.is_cancelled() {
                    self.shared.events.send(RunEvent::Warning {
                        host: self.info.name.clone(),
                        message: format!("{error}: stopping the run"),
                    });
                    self.shared.cancel.cancel();
                }
                error.into()
            }),
            None => Ok(()),
        }
    }

    /// `value` with the run's secrets replaced, before it is journaled.
    pub(crate) fn redact(&self, value: Value) -> Value {
        crate::secrets::redactor().value(value)
    }

    /// `text` with the run's secrets replaced.
    pub(crate) fn redact_text(&self, text: &str) -> String {
        crate::secrets::redact(text)
    }
}

pub(super) fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// `run(["mst", "status"])` → `run mst status`, for progress lines.
pub(crate) fn summarize(builtin: &str, args: &Value) -> String {
    let detail = match args.get("argv").and_then(Value::as_array) {
        Some(argv) => argv
            .iter()
            .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(" "),
        None if args.as_object().is_some_and(serde_json::Map::is_empty) => String::new(),
        None => args.to_string(),
    };
    // Never cut here: the terminal display cuts to its width, `--json` keeps it whole.
    if detail.is_empty() {
        builtin.to_owned()
    } else {
        format!("{builtin} {detail}")
    }
}
