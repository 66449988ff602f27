//! Running an action on the host: the debugger may stop before it, its intent is journaled
//! (fsynced) before the host is touched and its outcome after, and a failure under the debugger
//! goes to the prompt.

use std::time::Instant;

use serde_json::Value;

use super::debug_hooks::point;
use super::journaling::elapsed_ms;
use super::perform::Step;
use super::{HostContext, summarize};
use crate::journal::{IntentRecord, JournalEvent, now_millis};
use crate::{ActionError, HostIo, Outcome, RunEvent};

impl HostContext {
    /// Runs `live` for `step` on the host. `skip_default` is what the debugger's `:skip` returns.
    pub(super) fn run_live(
        &self,
        step: &Step<'_>,
        reconcile_kind: &str,
        skip_default: Option<Value>,
        live: impl FnOnce(&mut HostIo<'_>) -> Result<Outcome, ActionError>,
    ) -> Result<Value, ActionError> {
        let Step {
            seq,
            ref stage,
            ordinal,
            ref builtin,
            ref args,
            site,
        } = *step;
        if let Some(debugger) = &self.debugger {
            debugger.before_action(self.stop_host(), point(seq, stage, builtin, args, site))?;
        }
        self.shared.cancel.check()?;
        // An interrupted attempt its fence recorded runs again as itself: the same step ids.
        let intent_at = match self.state().fence_attempt.take() {
            Some((attempt_seq, at)) if attempt_seq == seq => at,
            _ => now_millis(),
        };
        let intent = IntentRecord {
            args: args.clone(),
            at: intent_at,
            builtin: builtin.clone(),
            column: site.column,
            file: site.file.clone(),
            line: site.line,
            ordinal,
            reconcile: reconcile_kind.to_owned(),
            seq,
            stage: stage.clone(),
            stage_index: self.state().stage.as_ref().map_or(0, |s| s.index),
        };
        self.append(&JournalEvent::Intent(intent), true)?;
        self.shared.events.send(RunEvent::ActionStarted {
            arguments: args.clone(),
            builtin: builtin.clone(),
            file: site.file.clone(),
            host: self.info.name.clone(),
            line: site.line,
            seq,
            stage: stage.clone(),
            summary: summarize(builtin, args),
            clock_scale: self.clock_scale(),
        });
        let started = Instant::now();
        let acting = self.acting(builtin, args);
        let result = HostIo::fenced(self, seq, intent_at).and_then(|mut io| live(&mut io));
        drop(acting);
        let result = self.finish_step(step, result, elapsed_ms(started), None);
        match (result, &self.debugger) {
            (Err(error), Some(debugger)) if !error.outcome_unknown() => {
                let point = point(seq, stage, builtin, args, site);
                let assumed = skip_default.unwrap_or(Value::Null);
                let answer = debugger.after_failure(self.stop_host(), point, &error, assumed);
                self.debug_decided(seq, builtin, site, args, error, answer)
            }
            (result, _) => result,
        }
    }
}
