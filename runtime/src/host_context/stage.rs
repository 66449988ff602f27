//! The host context's stages: entering one at its barrier, leaving it, the debugger's `:retry`
//! of a whole stage, and a rolling stage's batches with the roll's halt.

use super::{HostContext, Mode, Role, StageState};
use crate::journal::{BatchRecord, JournalEvent, StageRecord, now_millis};
use crate::{ActionError, CONTROLLER, RunEvent};

impl HostContext {
    /// Enters a stage: waits at its barrier, then says whether this host runs its block.
    pub fn enter_stage(&self, name: &str, group: &str) -> Result<bool, ActionError> {
        self.enter_stage_after(name, group, None)
    }

    /// Enters a stage, pipelined when `after` names a var (`stage ... after VAR`): a member
    /// waits only until the hosts its var names have finished every stage before this one, a
    /// host outside the group does not wait at all; without `after`, every host waits at the
    /// stage's barrier for the whole run. Then says whether this host runs the block.
    pub fn enter_stage_after(
        &self,
        name: &str,
        group: &str,
        after: Option<&str>,
    ) -> Result<bool, ActionError> {
        let index = {
            let mut state = self.state();
            if let Some(outer) = &state.stage {
                return Err(ActionError::Runbook(format!(
                    "stage `{name}` is inside stage `{}`: stages cannot nest",
                    outer.name
                )));
            }
            state.stage_count += 1;
            state.stage_count
        };
        let member = match self.role {
            Role::Controller => group == CONTROLLER,
            Role::Host => group != CONTROLLER && self.info.groups.iter().any(|g| g == group),
        };
        if self.mode == Mode::Live {
            let shared = &self.shared;
            // Reached before any wait: this host finished every stage before this one.
            shared.progress.reach(&self.info.name, index);
            let awaits = match after {
                Some(var) if member => {
                    match crate::pipeline::dependencies(&self.info.name, &self.info.vars, var)
                        .map_err(ActionError::Runbook)?
                    {
                        Some(named) => {
                            self.warn_outside(name, var, &named);
                            Awaits::Hosts(named)
                        }
                        None => Awaits::Everyone,
                    }
                }
                // Outside the group a pipelined stage holds nobody, and waits for nobody.
                Some(_) => Awaits::Nobody,
                None => Awaits::Barrier,
            };
            if awaits != Awaits::Nobody {
                self.say_whom_it_awaits(name, after, &awaits, index);
                shared.forks.release();
                let wait = crate::budget::Wait::Barrier(index);
                shared.budget.park(&self.info.name, wait);
                let arrived = match &awaits {
                    Awaits::Barrier => shared.barrier.arrive(index, &shared.cancel),
                    Awaits::Hosts(named) => shared.progress.wait_for(named, index, &shared.cancel),
                    Awaits::Everyone => shared.progress.wait_for_everyone(index, &shared.cancel),
                    Awaits::Nobody => Ok(()),
                };
                shared.budget.unpark(&self.info.name, wait);
                shared.forks.acquire(&shared.cancel)?;
                arrived?;
            }
            // A halted roll stops every host at the next barrier, once those that were down
            // finished the block that brings them back.
            shared.halt.check()?;
            if !self.replaying() {
                let record = StageRecord {
                    at: now_millis(),
                    group: group.to_owned(),
                    index,
                    member,
                    name: name.to_owned(),
                    after: after.filter(|_| member).map(str::to_owned),
                    waited_for: match awaits {
                        Awaits::Hosts(named) => named,
                        _ => Vec::new(),
                    },
                };
                self.append(&JournalEvent::Stage(record), false)?;
            }
            shared.events.send(RunEvent::StageStarted {
                host: self.info.name.clone(),
                index,
                member,
                name: name.to_owned(),
            });
        }
        let mut state = self.state();
        state.stage = Some(StageState {
            after: after.map(str::to_owned),
            batch: None,
            group: group.to_owned(),
            index,
            name: name.to_owned(),
            ordinal: 0,
        });
        state.stage_start_seq = state.seq;
        state.stage_results.clear();
        Ok(member)
    }

    /// Tells the status area whom a pipelined stage still waits for (a barrier's wait shows as
    /// such already: the hosts still in the stage before).
    fn say_whom_it_awaits(&self, stage: &str, after: Option<&str>, awaits: &Awaits, index: u64) {
        let (Some(var), false) = (after, self.replaying()) else {
            return;
        };
        let progress = &self.shared.progress;
        let reason = match awaits {
            Awaits::Hosts(named) => {
                let behind = progress.behind(named, index);
                if behind.is_empty() {
                    return;
                }
                format!(
                    "stage `{stage}` waits for {} (var `{var}`)",
                    behind.join(", ")
                )
            }
            Awaits::Everyone => {
                format!("stage `{stage}` waits for every host (no var `{var}`)")
            }
            Awaits::Barrier | Awaits::Nobody => return,
        };
        self.shared.events.send(RunEvent::Waiting {
            host: self.info.name.clone(),
            reason,
        });
    }

    /// Says which of the hosts a pipelined stage waits for run no stage in this run (outside
    /// `--limit`, or only a helper): the stage does not wait for them, and says so.
    fn warn_outside(&self, stage: &str, var: &str, named: &[String]) {
        if self.replaying() {
            return;
        }
        for other in named.iter().filter(|h| !self.shared.progress.takes_part(h)) {
            self.shared.events.send(RunEvent::Warning {
                host: self.info.name.clone(),
                message: format!(
                    "stage `{stage}` does not wait for {other} (var `{var}`): it runs no stage in this run"
                ),
            });
        }
    }

    /// The current stage's name and var when it is pipelined (`after VAR`).
    pub fn pipelined_stage(&self) -> Option<(String, String)> {
        let state = self.state();
        let stage = state.stage.as_ref()?;
        Some((stage.name.clone(), stage.after.clone()?))
    }

    /// Leaves the current stage.
    pub fn exit_stage(&self) {
        let left = self.state().stage.take();
        if let (Some(stage), Mode::Live) = (left, self.mode) {
            self.shared.events.send(RunEvent::StageFinished {
                host: self.info.name.clone(),
                index: stage.index,
                name: stage.name,
            });
        }
    }

    /// Marks the stage for a rerun from its start (the debugger's `:retry`).
    pub(crate) fn mark_retry(&self) {
        self.state().retry = true;
    }

    /// Whether `:retry` was chosen since the last call: the stage must run again.
    pub(crate) fn take_retry(&self) -> bool {
        std::mem::take(&mut self.state().retry)
    }

    /// Sets the stage back to its start for `:retry`: its actions that finished answer with
    /// what they returned, so only the failed one touches the host again.
    pub(crate) fn rerun_stage(&self) {
        let mut state = self.state();
        state.seq = state.stage_start_seq;
        if let Some(stage) = state.stage.as_mut() {
            stage.ordinal = 0;
        }
        state.rerun = state.stage_results.clone();
    }

    /// In a rolling stage (`serial`), after [`Self::enter_stage`] said this host is a member:
    /// waits until the batches before this host's have finished the block, giving its fork slot
    /// up meanwhile, and records the batch. Batches come from the stage's hosts in inventory
    /// order, fixed for the run, so a resume finds the batch that was running.
    pub fn enter_batch(&self, serial: crate::Serial) -> Result<(), ActionError> {
        let Some((index, name, stage_group)) = self
            .state()
            .stage
            .as_ref()
            .map(|s| (s.index, s.name.clone(), s.group.clone()))
        else {
            return Ok(());
        };
        if self.mode != Mode::Live || self.role != Role::Host {
            return Ok(());
        }
        let shared = &self.shared;
        let members: Vec<String> = shared
            .hosts
            .iter()
            .filter(|h| h.groups.contains(&stage_group))
            .map(|h| h.name.clone())
            .collect();
        let all = crate::rolling::batches(&members, serial.batch_size(members.len()));
        let Some(number) = all.iter().position(|b| b.contains(&self.info.name)) else {
            return Ok(());
        };
        shared.forks.release();
        let wait = crate::budget::Wait::Batch(index);
        shared.budget.park(&self.info.name, wait);
        let turn = shared
            .rolling
            .wait_turn(index, number, &all, &shared.halt, &shared.cancel);
        shared.budget.unpark(&self.info.name, wait);
        shared.forks.acquire(&shared.cancel)?;
        let first = turn?;
        let batch = all[number].clone();
        if first {
            shared.events.send(RunEvent::BatchStarted {
                batch: u64::try_from(number + 1).unwrap_or(u64::MAX),
                batches: u64::try_from(all.len()).unwrap_or(u64::MAX),
                hosts: batch.clone(),
                stage: name.clone(),
            });
        }
        if !self.replaying() {
            let record = BatchRecord {
                at: now_millis(),
                batch: number + 1,
                hosts: batch.clone(),
                index,
                of: all.len(),
                stage: name,
            };
            self.append(&JournalEvent::Batch(record), false)?;
        }
        if let Some(stage) = self.state().stage.as_mut() {
            stage.batch = Some(batch);
        }
        Ok(())
    }

    /// At the end of a rolling stage's block: lets the next batch go once this one is through,
    /// and applies `--max-fail-percent` to this host's batch, as Ansible does: once more than
    /// that share of a batch failed, no further batch starts (the run stops, resumable).
    /// Without `--max-fail-percent` the first failed host halts the roll.
    pub fn leave_batch(&self, ok: bool) {
        let Some((index, batch, stage)) = self
            .state()
            .stage
            .as_ref()
            .and_then(|s| s.batch.clone().map(|b| (s.index, b, s.name.clone())))
        else {
            return;
        };
        let shared = &self.shared;
        let failed = !ok && !shared.cancel.is_cancelled() && shared.halt.reason().is_none();
        let failures = if failed {
            shared.rolling.fail(index, &self.info.name, &batch)
        } else {
            0
        };
        // A check changes nothing, and a prediction that stopped at an `expect` is no failure.
        if failed && !shared.options.check && shared.options.max_fail_percent.is_none() {
            self.halt_roll(format!("{} failed in stage `{stage}`", self.info.name));
        }
        if let Some(limit) = shared.options.max_fail_percent
            && failed
            && failures * 100 > usize::from(limit) * batch.len()
        {
            shared.events.send(RunEvent::Warning {
                host: CONTROLLER.into(),
                message: format!(
                    "{failures} of the {} hosts of this batch failed, more than --max-fail-percent {limit}: no further batch starts",
                    batch.len()
                ),
            });
            shared.cancel.cancel();
        }
        shared.rolling.finish(index, &self.info.name);
    }

    /// Halts the roll (`halt.rs`) for `reason`, announcing it once with how to go on.
    pub fn halt_roll(&self, reason: String) {
        let shared = &self.shared;
        if shared.halt.halt(reason.clone()) {
            shared.events.send(RunEvent::Warning {
                host: CONTROLLER.into(),
                message: format!(
                    "{reason}: the roll stops: no further batch starts and no host goes down; the hosts already down finish their stage ({})",
                    crate::halt::HOW_TO_GO_ON
                ),
            });
        }
    }
}

/// What a host waits for as it enters a stage.
#[derive(Debug, PartialEq)]
enum Awaits {
    /// The stage's barrier: every host of the run.
    Barrier,
    /// A pipelined stage's dependencies, named by the host's var.
    Hosts(Vec<String>),
    /// A pipelined stage on a host without the var: every host of the run, from the progress.
    Everyone,
    /// A pipelined stage outside its group.
    Nobody,
}
