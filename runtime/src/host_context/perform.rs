//! One action through the host context: `perform` numbers it, then `replay.rs` answers it from
//! the journal (divergence, replay, `--assume`, probe) or `live.rs` runs it on the host.

use serde_json::Value;

use super::{HostContext, Mode, summarize};
use crate::{ActionCall, ActionError, CallSite, HostIo, Outcome};

/// One action as `perform` numbered and redacted it: what answering it from the journal and
/// running it live both need.
pub(super) struct Step<'s> {
    /// The action's place in the host's journal.
    pub(super) seq: u64,
    /// The stage it is in.
    pub(super) stage: String,
    /// Its place in the stage.
    pub(super) ordinal: u64,
    /// The builtin, e.g. `run`.
    pub(super) builtin: String,
    /// Its arguments with the run's secrets replaced, as journaled and matched on replay.
    pub(super) args: Value,
    /// Where the runbook called it.
    pub(super) site: &'s CallSite,
}

impl HostContext {
    /// Runs one action: answers it from the journal, reconciles it, or performs it live.
    pub fn perform(
        &self,
        call: ActionCall<'_>,
        site: &CallSite,
        live: impl FnOnce(&mut HostIo<'_>) -> Result<Outcome, ActionError>,
    ) -> Result<Value, ActionError> {
        let (seq, stage, ordinal) = self.next_action(&call.builtin)?;
        if let Some(value) = self.rerun_answer(seq) {
            return Ok(value);
        }
        let ActionCall {
            args,
            assumed,
            builtin,
            reconcile,
        } = call;
        let skip_default = self.debugger.as_ref().map(|_| assumed.clone());
        let step = Step {
            seq,
            stage,
            ordinal,
            builtin,
            args: self.redact(args),
            site,
        };
        let reconcile_kind = reconcile.kind();
        if let Some(recorded) = self.recorded.get(&seq)
            && let Some(value) = self.answer_from_journal(&step, recorded, reconcile, assumed)?
        {
            return Ok(value);
        }
        if self.mode == Mode::Verify {
            return Err(ActionError::ReachedLivePoint);
        }
        self.run_live(&step, reconcile_kind, skip_default, live)
    }

    pub(super) fn next_action(&self, builtin: &str) -> Result<(u64, String, u64), ActionError> {
        let mut state = self.state();
        let Some(stage) = state.stage.as_mut() else {
            return Err(ActionError::OutsideStage(builtin.to_owned()));
        };
        stage.ordinal += 1;
        let (name, ordinal) = (stage.name.clone(), stage.ordinal);
        state.seq += 1;
        Ok((state.seq, name, ordinal))
    }

    /// During a `:retry` rerun, what the action returned the first time.
    pub(super) fn rerun_answer(&self, seq: u64) -> Option<Value> {
        self.debugger.as_ref()?;
        let mut state = self.state();
        if state.rerun.is_empty() {
            return None;
        }
        state.rerun.remove(&seq)
    }

    /// Whether the failed action `seq` is replayed as its failure: inside a `retry`, an
    /// attempt the run went on past (the journal holds later actions) was counted, and running
    /// it again would restart the count and shift every later action.
    pub(super) fn replayed_failure(&self, seq: u64) -> bool {
        self.state().retrying > 0 && seq < self.last_recorded
    }

    /// Marks this host as in the middle of `builtin` until the guard drops, for a run stopped at
    /// once to say which outcomes it leaves unknown.
    pub(super) fn acting(&self, builtin: &str, args: &Value) -> crate::Acting {
        let in_flight = self.shared.cancel.in_flight();
        in_flight.start(&self.info.name, summarize(builtin, args))
    }
}
