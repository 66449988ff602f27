//! One host's instance of a run: where replay, reconcile and the journal meet. Its hooks for the
//! debugger are in `host_context/debug_hooks.rs`, what a running action sees of it in
//! `host_context/io.rs`.

mod debug_hooks;
mod io;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use rhai::{EvalAltResult, NativeCallContext, Position};
use serde_json::Value;

use crate::journal::{
    Assume, BatchRecord, HostEndRecord, HostJournal, HostStatus, IntentRecord, JournalEvent,
    JournalWriter, LogRecord, OutcomeRecord, ProgressRecord, RecordedAction, StageRecord,
    WaitRecord, now_millis,
};
use crate::{
    ActionCall, ActionError, CallSite, Debugger, HostInfo, HostIo, Outcome, Reconcile, RunEvent,
    RunShared, Transport,
};
use debug_hooks::point;

/// Whether the instance acts on a host or replays only, to check a runbook against its journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Replays what the journal holds, then acts.
    Live,
    /// Replays what the journal holds and stops at the first action it has no outcome for.
    Verify,
}

/// The controller's instance runs only `on controller` stages; a host's instance the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The interpreter's own machine.
    Controller,
    /// An inventory host.
    Host,
}

/// The stage a host is in.
#[derive(Debug, Clone)]
struct StageState {
    /// The host's batch, in a rolling stage.
    batch: Option<Vec<String>>,
    group: String,
    index: u64,
    name: String,
    ordinal: u64,
}

/// A check, registered by a builtin that staged a next-boot change, that the change took after
/// the reboot: `Ok(Some(error))` when it did not.
pub type AfterBoot =
    Arc<dyn Fn(&mut HostIo<'_>) -> Result<Option<ActionError>, ActionError> + Send + Sync>;

#[derive(Default)]
struct InstanceState {
    /// Checks to run after the next reboot, in the order the changes were staged.
    after_boot: Vec<(String, AfterBoot)>,
    changes: Vec<String>,
    /// The staged changes the next reboot activates: (builtin, where it was called), in order.
    reboot_pending: Vec<(String, String)>,
    /// What the current stage's finished actions returned, answered again when the debugger's
    /// `:retry` runs the stage again (kept only under a debugger).
    rerun: BTreeMap<u64, Value>,
    /// `:retry` was chosen: the stage runs again from its start.
    retry: bool,
    /// How many `retry(...)` closures the runbook is inside.
    retrying: u32,
    /// In check mode, where the prediction stopped and why (`file:line: message`).
    prediction_stopped: Option<String>,
    seq: u64,
    stage: Option<StageState>,
    stage_count: u64,
    stage_results: BTreeMap<u64, Value>,
    stage_start_seq: u64,
}

/// One host's instance: its journal, what it replays from, and where it is.
pub struct HostContext {
    debugger: Option<Arc<Debugger>>,
    /// Stops a command while it runs (the REPL's Ctrl-C); `None` in a run.
    interrupt: Option<crate::Cancel>,
    /// The host.
    pub info: HostInfo,
    journal: Mutex<Option<JournalWriter>>,
    journal_path: String,
    last_recorded: u64,
    /// Live or verify.
    pub mode: Mode,
    recorded: BTreeMap<u64, RecordedAction>,
    /// Host or controller.
    pub role: Role,
    runbook_file: String,
    /// What all instances of the run share.
    pub shared: Arc<RunShared>,
    state: Mutex<InstanceState>,
    transport: Arc<Mutex<Box<dyn Transport>>>,
}

/// Inside a `retry(...)` closure while it lives.
pub(crate) struct RetryGuard<'a>(&'a HostContext);

impl Drop for RetryGuard<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.retrying = state.retrying.saturating_sub(1);
    }
}

/// The host context, as a rhai value in the engine's tag.
#[derive(Clone)]
pub(crate) struct HostHandle(pub(crate) Arc<HostContext>);

impl HostContext {
    /// An instance for `info`, replaying from `recorded` and appending to `journal`.
    #[allow(clippy::too_many_arguments)] // each is a separate concern; a builder would add nothing
    pub fn new(
        info: HostInfo,
        role: Role,
        mode: Mode,
        shared: Arc<RunShared>,
        transport: Arc<Mutex<Box<dyn Transport>>>,
        recorded: HostJournal,
        journal: Option<JournalWriter>,
        runbook_file: String,
    ) -> Self {
        let last_recorded = recorded.actions.keys().next_back().copied().unwrap_or(0);
        let journal_path = journal.as_ref().map_or_else(
            || recorded.path.display().to_string(),
            |w| w.path().display().to_string(),
        );
        Self {
            debugger: None,
            interrupt: None,
            info,
            journal: Mutex::new(journal),
            journal_path,
            last_recorded,
            mode,
            recorded: recorded.actions,
            role,
            runbook_file,
            shared,
            state: Mutex::new(InstanceState::default()),
            transport,
        }
    }

    /// Sets what stops this host's commands while they run: the REPL's Ctrl-C.
    #[must_use]
    pub fn with_interrupt(mut self, interrupt: crate::Cancel) -> Self {
        self.interrupt = Some(interrupt);
        self
    }

    /// What stops a running command, if anything does.
    pub(crate) fn interrupt(&self) -> Option<crate::Cancel> {
        self.interrupt.clone()
    }

    /// Puts the instance under `debugger`, which it asks before live actions, at stages and
    /// after failures.
    #[must_use]
    pub fn with_debugger(mut self, debugger: Option<Arc<Debugger>>) -> Self {
        self.debugger = debugger;
        self
    }

    /// The debugger this instance answers to, if any.
    pub fn debugger(&self) -> Option<&Arc<Debugger>> {
        self.debugger.as_ref()
    }

    /// The run's id: the name of the folder its journals are in (`.cairn/runs/<id>/`). Names
    /// what a run leaves on a host (a server's pidfile) so a resume of the same run finds it.
    pub fn run_id(&self) -> String {
        std::path::Path::new(&self.journal_path)
            .parent()
            .and_then(std::path::Path::file_name)
            .map_or_else(|| "run".to_owned(), |n| n.to_string_lossy().into_owned())
    }

    /// The runbook file, as call sites name it.
    pub fn runbook_file(&self) -> &str {
        &self.runbook_file
    }

    /// The instance a builtin runs for, from the engine's tag.
    pub fn current(ctx: &NativeCallContext) -> Result<Arc<HostContext>, Box<EvalAltResult>> {
        ctx.tag()
            .and_then(|tag| tag.read_lock::<HostHandle>().map(|handle| handle.0.clone()))
            .ok_or_else(|| "builtins need a host: this engine was built without one".into())
    }

    /// The instance's own state. Only its own thread locks it; a poisoned lock (a panic on
    /// that thread) leaves nothing half-written that matters, so it is taken over.
    fn state(&self) -> MutexGuard<'_, InstanceState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn transport(&self) -> &Arc<Mutex<Box<dyn Transport>>> {
        &self.transport
    }

    /// The call site of a builtin.
    pub fn site(&self, ctx: &NativeCallContext) -> CallSite {
        let position = ctx.call_position();
        CallSite {
            column: position
                .position()
                .and_then(|c| u32::try_from(c).ok())
                .unwrap_or(0),
            file: crate::runbook::source_file(&self.runbook_file, ctx.call_source().unwrap_or("")),
            line: position
                .line()
                .and_then(|l| u32::try_from(l).ok())
                .unwrap_or(0),
        }
    }

    /// Whether the next action will be answered from the journal (or, under the debugger's
    /// `:retry`, from what the stage's earlier actions returned).
    pub fn replaying(&self) -> bool {
        let state = self.state();
        state.seq < self.last_recorded
            || state
                .rerun
                .keys()
                .next_back()
                .is_some_and(|last| *last > state.seq)
    }

    /// The builtin and arguments the journal holds for the next action, if it holds one (the
    /// action will be replayed).
    pub fn next_recorded(&self) -> Option<(String, Value)> {
        let next = self.state().seq + 1;
        self.recorded
            .get(&next)
            .map(|r| (r.intent.builtin.clone(), r.intent.args.clone()))
    }

    /// The actions of this run that changed the host (not the replayed ones), summarized.
    pub fn changes(&self) -> Vec<String> {
        self.state().changes.clone()
    }

    /// Why a reboot is pending, if one is.
    pub fn reboot_pending(&self) -> Option<String> {
        self.state()
            .reboot_pending
            .last()
            .map(|(_, why)| why.clone())
    }

    /// A builtin activated, without a reboot, what these builtins staged (a firmware reset
    /// loads a flashed image and the next-boot configuration): they no longer owe one. What
    /// others staged (a driver, a module parameter) still does.
    pub fn staged_activated(&self, builtins: &[&str]) {
        self.state()
            .reboot_pending
            .retain(|(builtin, _)| !builtins.contains(&builtin.as_str()));
    }

    /// After the next reboot, `check` must find the change `what` staged (the reboot-loop
    /// breaker). Registered on replay as well, so a resume checks what the journal staged.
    pub fn check_after_boot(&self, what: String, check: AfterBoot) {
        self.state().after_boot.push((what, check));
    }

    /// The checks waiting for a reboot, taken.
    pub fn take_after_boot(&self) -> Vec<(String, AfterBoot)> {
        std::mem::take(&mut self.state().after_boot)
    }

    /// Marks a value as secret: it is replaced by `<redacted>` wherever it would be journaled.
    pub fn add_secret(&self, value: &str) {
        crate::secrets::register(value);
    }

    /// Turns a failure into a rhai error at `position` whose value is the typed error
    /// ([`ActionError::raise`]), for the report to find.
    pub fn fail(&self, error: ActionError, position: Position) -> Box<EvalAltResult> {
        error.raise(position)
    }

    /// Enters a stage: waits at its barrier, then says whether this host runs its block.
    pub fn enter_stage(&self, name: &str, group: &str) -> Result<bool, ActionError> {
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
            Role::Controller => group == "controller",
            Role::Host => group != "controller" && self.info.groups.iter().any(|g| g == group),
        };
        if self.mode == Mode::Live {
            let shared = &self.shared;
            shared.forks.release();
            let wait = crate::budget::Wait::Barrier(index);
            shared.budget.park(&self.info.name, wait);
            let arrived = shared.barrier.arrive(index, &shared.cancel);
            shared.budget.unpark(&self.info.name, wait);
            shared.forks.acquire(&shared.cancel)?;
            arrived?;
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

    /// Check mode: an `expect` failed on what check mode could not know, so the rest of this
    /// host's prediction would build on empty values. Records where and why, logs
    /// `check: prediction stops here: ...`, and gives the error that ends the instance (which
    /// the executor then counts as done, with the note).
    pub fn stop_prediction(&self, message: &str, ctx: &NativeCallContext) -> Box<EvalAltResult> {
        let position = ctx.call_position();
        // The file the `expect` is in: an imported module's, not the runbook's.
        let site = self.site(ctx);
        let at = format!("{}:{}", site.file, site.line);
        let note = format!("check: prediction stops here: {message}");
        let _ = self.log(note.clone());
        self.state().prediction_stopped = Some(format!("{at}: {message}"));
        self.fail(ActionError::Failed(note), position)
    }

    /// Where and why check mode stopped predicting, if it did.
    pub fn prediction_stopped(&self) -> Option<String> {
        self.state().prediction_stopped.clone()
    }

    /// Marks the instance as inside a `retry(...)` closure until the guard drops.
    pub(crate) fn enter_retry(&self) -> RetryGuard<'_> {
        self.state().retrying += 1;
        RetryGuard(self)
    }

    /// Whether the failed action `seq` is replayed as its failure: inside a `retry`, an
    /// attempt the run went on past (the journal holds later actions) was counted, and running
    /// it again would restart the count and shift every later action.
    fn replayed_failure(&self, seq: u64) -> bool {
        self.state().retrying > 0 && seq < self.last_recorded
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
                host: "controller".into(),
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
                host: "controller".into(),
                message: format!(
                    "{reason}: the roll stops: no further batch starts and no host goes down; the hosts already down finish their stage ({})",
                    crate::halt::HOW_TO_GO_ON
                ),
            });
        }
    }

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
        let taken = shared.budget.acquire(
            &self.info.name,
            why,
            &shared.halt,
            &shared.cancel,
            |limit, holders| {
                let holders: Vec<String> =
                    holders.iter().map(|(h, w)| format!("{h} {w}")).collect();
                shared.events.send(RunEvent::BudgetWait {
                    host: self.info.name.clone(),
                    before: before.to_owned(),
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
            },
        );
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
        let skip_default = self.debugger.as_ref().map(|_| call.assumed.clone());
        let args = self.redact(call.args);
        let reconcile_kind = call.reconcile.kind();
        if let Some(recorded) = self.recorded.get(&seq) {
            if recorded.intent.builtin != call.builtin || recorded.intent.args != args {
                return Err(ActionError::Diverged {
                    journal: self.journal_path.clone(),
                    now: call.builtin,
                    now_args: args,
                    seq,
                    site: site.clone(),
                    then: Box::new(recorded.clone()),
                });
            }
            match (&recorded.outcome, recorded.decision) {
                // Replayed: no event, so a resume of a long journal costs only the replay.
                (Some(outcome), _) if outcome.ok => {
                    self.settle(&call.builtin, site, outcome.reboot_required, outcome.ok);
                    return Ok(outcome.result.clone());
                }
                (Some(outcome), _) if self.replayed_failure(seq) => {
                    let error = outcome.error.clone().unwrap_or_default();
                    return Err(ActionError::Failed(error));
                }
                (Some(_), _) => {}
                (None, _) if self.mode == Mode::Verify => {
                    return Err(ActionError::ReachedLivePoint);
                }
                (None, Some(Assume::Done)) => {
                    let outcome = Outcome::unchanged(call.assumed);
                    return self.finish(
                        seq,
                        &call.builtin,
                        site,
                        &args,
                        Ok(outcome),
                        0,
                        Some("assumed"),
                    );
                }
                (None, Some(Assume::Redo)) => {}
                (None, None) => match call.reconcile {
                    Reconcile::Redo => {}
                    Reconcile::Ask => {
                        return Err(ActionError::NeedsDecision {
                            builtin: call.builtin,
                            seq,
                            site: site.clone(),
                        });
                    }
                    // Marked, with no `acting` record: it stopped before changing anything.
                    Reconcile::Marked(_)
                        if recorded.intent.reconcile == "marked"
                            && crate::acted(&recorded.progress).is_none() => {}
                    Reconcile::Probe(probe) | Reconcile::Marked(probe) => {
                        self.shared.cancel.check()?;
                        let started = Instant::now();
                        let mut io = HostIo::new(self, seq)?;
                        let acting = self.acting(&call.builtin, &args);
                        let probed = probe(&mut io, &recorded.progress);
                        drop((acting, io));
                        match probed {
                            Ok(Some(outcome)) => {
                                let elapsed = elapsed_ms(started);
                                return self.finish(
                                    seq,
                                    &call.builtin,
                                    site,
                                    &args,
                                    Ok(outcome),
                                    elapsed,
                                    Some("probe"),
                                );
                            }
                            Ok(None) => {}
                            Err(error) => return Err(error),
                        }
                    }
                },
            }
        }
        if self.mode == Mode::Verify {
            return Err(ActionError::ReachedLivePoint);
        }
        if let Some(debugger) = &self.debugger {
            debugger.before_action(
                self.stop_host(),
                point(seq, &stage, &call.builtin, &args, site),
            )?;
        }
        self.shared.cancel.check()?;
        let intent = IntentRecord {
            args: args.clone(),
            at: now_millis(),
            builtin: call.builtin.clone(),
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
            builtin: call.builtin.clone(),
            file: site.file.clone(),
            host: self.info.name.clone(),
            line: site.line,
            seq,
            stage: stage.clone(),
            summary: summarize(&call.builtin, &args),
        });
        let started = Instant::now();
        let acting = self.acting(&call.builtin, &args);
        let result = HostIo::new(self, seq).and_then(|mut io| live(&mut io));
        drop(acting);
        let result = self.finish(
            seq,
            &call.builtin,
            site,
            &args,
            result,
            elapsed_ms(started),
            None,
        );
        match (result, &self.debugger) {
            (Err(error), Some(debugger)) if !error.outcome_unknown() => {
                let point = point(seq, &stage, &call.builtin, &args, site);
                let assumed = skip_default.unwrap_or(Value::Null);
                let answer = debugger.after_failure(self.stop_host(), point, &error, assumed);
                self.debug_decided(seq, &call.builtin, site, &args, error, answer)
            }
            (result, _) => result,
        }
    }

    /// During a `:retry` rerun, what the action returned the first time.
    fn rerun_answer(&self, seq: u64) -> Option<Value> {
        self.debugger.as_ref()?;
        let mut state = self.state();
        if state.rerun.is_empty() {
            return None;
        }
        state.rerun.remove(&seq)
    }

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
        let record = OutcomeRecord {
            at: now_millis(),
            changed,
            elapsed_ms,
            error: error.clone(),
            how: how.map(str::to_owned),
            ok,
            reboot_required,
            result: self.redact(value),
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

    /// Marks this host as in the middle of `builtin` until the guard drops, for a run stopped at
    /// once to say which outcomes it leaves unknown.
    fn acting(&self, builtin: &str, args: &Value) -> crate::Acting {
        let in_flight = self.shared.cancel.in_flight();
        in_flight.start(&self.info.name, summarize(builtin, args))
    }

    /// Updates what the host owes: a reboot after a staged change, none after a reboot.
    fn settle(&self, builtin: &str, site: &CallSite, reboot_required: bool, ok: bool) {
        let mut state = self.state();
        if builtin == "reboot" && ok {
            state.reboot_pending.clear();
        } else if reboot_required {
            let why = format!("`{builtin}` at {}:{}", site.file, site.line);
            state.reboot_pending.push((builtin.to_owned(), why));
        }
    }

    fn next_action(&self, builtin: &str) -> Result<(u64, String, u64), ActionError> {
        let mut state = self.state();
        let Some(stage) = state.stage.as_mut() else {
            return Err(ActionError::OutsideStage(builtin.to_owned()));
        };
        stage.ordinal += 1;
        let (name, ordinal) = (stage.name.clone(), stage.ordinal);
        state.seq += 1;
        Ok((state.seq, name, ordinal))
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
                // next barrier without it: the whole run stops, as on Ctrl-C.
                if !self.shared.cancel.is_cancelled() {
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

fn elapsed_ms(started: Instant) -> u64 {
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
