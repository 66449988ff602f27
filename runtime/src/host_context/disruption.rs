//! The host context's place in the disruption budget (`--max-unavailable`): `unavailable()` and
//! the waits before a reboot or maintenance mode.

use super::{HostContext, Mode};
use crate::journal::{JournalEvent, WaitRecord, now_millis};
use crate::{ActionError, RunEvent};

impl HostContext {
    /// `unavailable()`: from here to `available()` or the end of the stage's block this host
    /// is down, taking its place in the disruption budget first (waiting for room). Replaying
    /// a journal that went past this point, the host was down then: it takes its place back
    /// without waiting, as a host left in maintenance mode does.
    pub fn declare_unavailable(&self) -> Result<(), ActionError> {
        if self.state().stage.is_none() {
            return Err(ActionError::Runbook(
                "`unavailable()` marks a step of a stage: call it inside a stage".into(),
            ));
        }
        if self.mode == Mode::Live && self.replaying() {
            self.shared.budget.resume_down(&self.info.name);
            return Ok(());
        }
        self.take_budget(crate::Disruption::Declared)
    }

    /// Takes a place in the disruption budget before `why`, waiting (without a fork slot) while
    /// it is full; the wait is shown and journaled with who holds the budget. Once the roll is
    /// halted, a host that is still up stops here instead.
    pub fn take_budget(&self, why: crate::Disruption) -> Result<(), ActionError> {
        let shared = &self.shared;
        if self.mode != Mode::Live || shared.options.check {
            return Ok(());
        }
        let before = match why {
            crate::Disruption::Declared => "disruption",
            crate::Disruption::Reboot => "reboot",
            crate::Disruption::Maintenance => "maintenance",
        };
        let mut released = false;
        let mut journaled = Ok(());
        let taken =
            shared
                .budget
                .acquire(&self.info.name, why, &shared.halt, &shared.cancel, |full| {
                    let limit = full.limit;
                    let holders: Vec<String> = full
                        .holders
                        .iter()
                        .map(|(h, w)| format!("{h} {w}"))
                        .collect();
                    shared.events.send(RunEvent::BudgetWait {
                        host: self.info.name.clone(),
                        before: before.to_owned(),
                        group: full.group.clone(),
                        limit,
                        holders: holders.clone(),
                    });
                    let record = WaitRecord {
                        at: now_millis(),
                        before: before.to_owned(),
                        holders,
                        limit,
                    };
                    journaled = self.append(&JournalEvent::Wait(record), true);
                    shared.forks.release();
                    released = true;
                });
        if released {
            shared.forks.acquire(&shared.cancel)?;
        }
        journaled?;
        taken
    }

    /// Gives the place taken for `why` back.
    pub fn release_budget(&self, why: crate::Disruption) {
        self.shared.budget.release(&self.info.name, why);
    }
}
