//! Answering an action from the journal: the runbook must ask for what the journal recorded at
//! this place (else it diverged); a finished action replays its result (the secrets it held put
//! back, `secrets.rs`); an interrupted one is settled by `--assume`, by running it again when
//! that is harmless, or by the builtin's probe.

use std::time::Instant;

use serde_json::Value;

use super::journaling::elapsed_ms;
use super::perform::Step;
use super::{HostContext, Mode};
use crate::journal::{Assume, RecordedAction};
use crate::{ActionError, HostIo, Outcome, Probe, Reconcile};

impl HostContext {
    /// The action's answer from what the journal recorded for it at its place, or `None` when
    /// it must run live.
    pub(super) fn answer_from_journal(
        &self,
        step: &Step<'_>,
        recorded: &RecordedAction,
        reconcile: Reconcile<'_>,
        assumed: Value,
    ) -> Result<Option<Value>, ActionError> {
        if recorded.intent.builtin != step.builtin || recorded.intent.args != step.args {
            return Err(ActionError::Diverged {
                journal: self.journal_path.clone(),
                now: step.builtin.clone(),
                now_args: step.args.clone(),
                seq: step.seq,
                site: step.site.clone(),
                then: Box::new(recorded.clone()),
            });
        }
        match (&recorded.outcome, recorded.decision) {
            // Replayed: no event, so a resume of a long journal costs only the replay.
            (Some(outcome), _) if outcome.ok => {
                self.settle(
                    &step.builtin,
                    step.site,
                    outcome.reboot_required,
                    outcome.ok,
                );
                crate::secrets::redactor()
                    .restore(&outcome.result, &outcome.secrets)
                    .map(Some)
                    .map_err(|problem| ActionError::SecretNotRestored {
                        builtin: step.builtin.clone(),
                        seq: step.seq,
                        problem,
                        journal: self.journal_path.clone(),
                    })
            }
            (Some(outcome), _) if self.replayed_failure(step.seq) => {
                let error = outcome.error.clone().unwrap_or_default();
                Err(ActionError::Failed(error))
            }
            (Some(_), _) => Ok(None),
            (None, _) if self.mode == Mode::Verify => Err(ActionError::ReachedLivePoint),
            (None, Some(Assume::Done)) => {
                let outcome = Outcome::unchanged(assumed);
                self.finish_step(step, Ok(outcome), 0, Some("assumed"))
                    .map(Some)
            }
            (None, Some(Assume::Redo)) => Ok(None),
            (None, None) => self.reconcile(step, recorded, reconcile),
        }
    }

    /// An interrupted action (an intent, no outcome) the operator gave no `--assume` for,
    /// settled as its builtin says.
    fn reconcile(
        &self,
        step: &Step<'_>,
        recorded: &RecordedAction,
        reconcile: Reconcile<'_>,
    ) -> Result<Option<Value>, ActionError> {
        match reconcile {
            Reconcile::Redo => Ok(None),
            Reconcile::Ask if self.settle_by_fence(step, recorded)? => Ok(None),
            Reconcile::Ask => Err(ActionError::NeedsDecision {
                builtin: step.builtin.clone(),
                seq: step.seq,
                site: step.site.clone(),
            }),
            // Marked, with no `acting` record: it stopped before changing anything.
            Reconcile::Marked(_)
                if recorded.intent.reconcile == "marked"
                    && crate::acted(&recorded.progress).is_none() =>
            {
                Ok(None)
            }
            Reconcile::Probe(probe) | Reconcile::Marked(probe) => self.probe(step, recorded, probe),
        }
    }

    /// Asks the host whether the interrupted action happened: its outcome when it did, `None`
    /// when it must run again.
    fn probe(
        &self,
        step: &Step<'_>,
        recorded: &RecordedAction,
        probe: Probe<'_>,
    ) -> Result<Option<Value>, ActionError> {
        self.shared.cancel.check()?;
        let started = Instant::now();
        let mut io = HostIo::new(self, step.seq)?;
        let acting = self.acting(&step.builtin, &step.args);
        let probed = probe(&mut io, &recorded.progress);
        drop((acting, io));
        match probed? {
            Some(outcome) => self
                .finish_step(step, Ok(outcome), elapsed_ms(started), Some("probe"))
                .map(Some),
            None => Ok(None),
        }
    }

    /// [`HostContext::finish`] for `step`.
    pub(super) fn finish_step(
        &self,
        step: &Step<'_>,
        result: Result<Outcome, ActionError>,
        elapsed_ms: u64,
        how: Option<&str>,
    ) -> Result<Value, ActionError> {
        self.finish(
            step.seq,
            &step.builtin,
            step.site,
            &step.args,
            result,
            elapsed_ms,
            how,
        )
    }
}
