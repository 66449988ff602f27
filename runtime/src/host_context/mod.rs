//! One host's instance of a run: where replay, reconcile and the journal meet. Cut by concern:
//! the struct and its small accessors here; stages, batches and the roll's halt in `stage.rs`;
//! the disruption budget in `disruption.rs`; one action in `perform.rs` (numbering it, then
//! `replay.rs` answers it from the journal or `live.rs` runs it on the host); what is written to
//! the journal and reported in `journaling.rs`; the debugger's hooks in `debug_hooks.rs`; what a
//! running action sees of the instance in `io.rs`.
//!
//! Also: `refusal.rs`, a host refused before its first action; `fence_settle.rs`, an interrupted
//! action settled from its fence record; `fence_prune.rs`, a done host's fence records pruned;
//! `result_shape.rs`, an action's result read as the builtin's type, or a `JournalShape` error
//! naming the record.

mod debug_hooks;
mod disruption;
mod fence_prune;
mod fence_settle;
mod io;
mod journaling;
mod live;
mod perform;
mod refusal;
mod replay;
mod result_shape;
mod stage;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use rhai::{EvalAltResult, NativeCallContext, Position};
use serde_json::Value;

use crate::journal::{HostJournal, JournalWriter, RecordedAction};
use crate::{ActionError, CallSite, Debugger, HostInfo, HostIo, RunShared, Transport};

pub(crate) use journaling::summarize;

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
    /// The var of a pipelined stage (`after VAR`): `hosts(...)` would read a partial run.
    after: Option<String>,
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

/// A next-boot change's check, with the action and the stage that staged it: a change the
/// host did not apply names them, so the help can give the resume that stages it again.
pub(crate) struct StagedCheck {
    /// What was staged, for the journal (`mlxconfig mt4119_pciconf1 LINK_TYPE_P1`).
    pub(crate) what: String,
    /// The staging action's sequence number.
    pub(crate) seq: u64,
    /// The stage it was staged in: its number (as `--from-stage` counts) and name.
    pub(crate) stage: (u64, String),
    /// The check.
    pub(crate) check: AfterBoot,
}

#[derive(Default)]
struct InstanceState {
    /// Checks to run after the next reboot, in the order the changes were staged.
    after_boot: Vec<StagedCheck>,
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
    /// An interrupted action to run again as the same attempt, `(seq, intent time)`: its host's
    /// fence replays the steps it recorded done (`replay.rs`, `settle_by_fence`).
    fence_attempt: Option<(u64, u64)>,
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
    /// The epoch and owner of the host's lease, which its fence is told.
    fence_lease: Option<(u64, String)>,
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
    /// The host's clock's speed against the wall (`Clock::scale`), read once: a host's clock
    /// does not change kind while it runs, and its events carry it without locking the
    /// transport.
    clock_scale: Option<u32>,
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
        let clock_scale = transport
            .lock()
            .map_or(None, |transport| transport.clock().scale());
        Self {
            clock_scale,
            debugger: None,
            fence_lease: None,
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

    /// Fences this host's changing commands at `epoch` (its lease's) as `owner`.
    #[must_use]
    pub fn with_fence(mut self, epoch: u64, owner: String) -> Self {
        self.fence_lease = Some((epoch, owner));
        self
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

    /// The host's clock's speed against the wall, when it is a scaled simulated clock.
    pub(crate) fn clock_scale(&self) -> Option<u32> {
        self.clock_scale
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
            callers: crate::call_chain::callers(ctx, &self.runbook_file),
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
    /// The check remembers the action just performed and its stage, which staged the change.
    pub fn check_after_boot(&self, what: String, check: AfterBoot) {
        let mut state = self.state();
        let stage = state
            .stage
            .as_ref()
            .map(|stage| (stage.index, stage.name.clone()))
            .unwrap_or_default();
        let seq = state.seq;
        state.after_boot.push(StagedCheck {
            what,
            seq,
            stage,
            check,
        });
    }

    /// The checks waiting for a reboot, taken.
    pub(crate) fn take_after_boot(&self) -> Vec<StagedCheck> {
        std::mem::take(&mut self.state().after_boot)
    }

    /// Marks the value of secret param `param` as secret: it is replaced by `<redacted>`
    /// wherever it would be journaled.
    pub fn add_secret(&self, param: &str, value: &str) {
        crate::secrets::register(&crate::secrets::param_name(param), value);
    }

    /// Turns a failure into a rhai error at `position` whose value is the typed error
    /// ([`ActionError::raise`]), for the report to find.
    pub fn fail(&self, error: ActionError, position: Position) -> Box<EvalAltResult> {
        error.raise(position)
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
}
