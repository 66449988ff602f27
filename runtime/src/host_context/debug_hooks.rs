//! The host context's hooks for the debugger: a stop at a stage's start, and carrying out
//! (and journaling) the prompt's answer to a failed action. A part of the host context kept
//! apart from its journal-and-replay code; the debugger they call knows no host context.

use rhai::Position;
use serde_json::Value;

use crate::debug::pause::StopHost;
use crate::host_context::summarize;
use crate::journal::{DebugChoice, DebugRecord, JournalEvent, now_millis};
use crate::{ActionError, CallSite, HostContext, Outcome, PausePoint, Resume};

impl HostContext {
    /// This host, as the debugger sees it at a stop.
    pub(super) fn stop_host(&self) -> StopHost<'_> {
        StopHost {
            info: &self.info,
            runbook_file: self.runbook_file(),
            transport: self.transport(),
        }
    }

    /// At the start of a stage's block: the debugger may stop here (`:next`, a breakpoint).
    pub(crate) fn debug_stage(
        &self,
        name: &str,
        position: Position,
        scope: &rhai::Scope,
    ) -> Result<(), ActionError> {
        let Some(debugger) = self.debugger() else {
            return Ok(());
        };
        let point = PausePoint {
            action: None,
            seq: None,
            site: CallSite {
                column: position
                    .position()
                    .and_then(|c| u32::try_from(c).ok())
                    .unwrap_or(0),
                file: self.runbook_file().to_owned(),
                line: position
                    .line()
                    .and_then(|l| u32::try_from(l).ok())
                    .unwrap_or(0),
                callers: Vec::new(),
            },
            stage: name.to_owned(),
        };
        debugger.at_stage(self.stop_host(), point, scope)
    }

    /// Journals the debugger's answer to a failed action and carries it out: a retry fails
    /// the call and marks the stage for a rerun, a skip records the given value as the outcome.
    pub(crate) fn debug_decided(
        &self,
        seq: u64,
        builtin: &str,
        site: &CallSite,
        args: &Value,
        error: ActionError,
        answer: Resume,
    ) -> Result<Value, ActionError> {
        let (choice, value) = match &answer {
            Resume::Retry => (DebugChoice::Retry, None),
            Resume::Skip(value) => (DebugChoice::Skip, Some(self.redact(value.clone()))),
            _ => (DebugChoice::Abort, None),
        };
        let record = DebugRecord {
            at: now_millis(),
            choice,
            seq,
            value,
        };
        self.append(&JournalEvent::Debug(record), true)?;
        match answer {
            Resume::Retry => {
                self.mark_retry();
                Err(error)
            }
            Resume::Skip(value) => {
                let outcome = Outcome::unchanged(value);
                self.finish(seq, builtin, site, args, Ok(outcome), 0, Some("skipped"))
            }
            _ => Err(error),
        }
    }
}

/// Where an action stands, for the debugger.
pub(crate) fn point(
    seq: u64,
    stage: &str,
    builtin: &str,
    args: &Value,
    site: &CallSite,
) -> PausePoint {
    PausePoint {
        action: Some(summarize(builtin, args)),
        seq: Some(seq),
        site: site.clone(),
        stage: stage.to_owned(),
    }
}
