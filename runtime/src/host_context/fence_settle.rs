//! Settling an interrupted action from its host's fence record instead of asking: the fence
//! recorded each of the attempt's commands `started`, then `done` with its exit code and output
//! (docs/fleet.md, "Fencing on the host").

use super::HostContext;
use super::perform::Step;
use crate::ActionError;
use crate::fence::{StepRecord, step_id};
use crate::journal::RecordedAction;

/// The most commands of one attempt a resume asks the fence about.
const MOST_STEPS: u64 = 100_000;

impl HostContext {
    /// Whether the interrupted action `step` (its intent `recorded`, no outcome) can run again
    /// without asking, because its host's fence knows what became of it:
    /// - its first command never started: it never ran, and under the fence it never will: it
    ///   runs again as a new attempt;
    /// - every command that started is done: it runs again as the same attempt, and the fence
    ///   answers those commands with their recorded results instead of running them;
    /// - a command started and never finished: its outcome is unknown: `false` (ask).
    ///
    /// `false` too when the host is not fenced (its transport keeps no record).
    pub(super) fn settle_by_fence(
        &self,
        step: &Step<'_>,
        recorded: &RecordedAction,
    ) -> Result<bool, ActionError> {
        if self.fence_lease.is_none() {
            return Ok(false);
        }
        let run = self.run_id();
        let at = recorded.intent.at;
        let transport = self
            .transport
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for command in 1..=MOST_STEPS {
            let id = step_id(&run, step.seq, at, command);
            match transport.fence_record(&id)? {
                None => return Ok(false),
                Some(StepRecord::Started { .. }) => return Ok(false),
                Some(StepRecord::None) if command == 1 => return Ok(true),
                Some(StepRecord::None) => break,
                Some(StepRecord::Done { .. }) => {}
            }
        }
        drop(transport);
        self.state().fence_attempt = Some((step.seq, at));
        Ok(true)
    }
}
