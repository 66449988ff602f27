//! One host's instance on a thread of its own: the one way a run's hosts and the debugger's
//! host start (`spawn_instance`), the runbook run on it, and how its part ended.

use std::sync::Arc;
use std::thread::JoinHandle;

use super::Plan;
use super::begin::Begun;
use crate::CONTROLLER;
use crate::ending::failure::HostFailure;
use crate::journal::HostStatus;
use crate::{
    ActionError, HostContext, HostReport, Installer, Mode, RunEvent, RunShared, Runbook, bind_host,
    build_engine,
};

/// What an instance's engine gets before the runbook runs on it (the debugger's watch of the
/// variables `:vars` shows).
pub(crate) type Prepare = Box<dyn FnOnce(&mut rhai::Engine) + Send>;

/// A host's instance to start on a thread of its own.
pub(crate) struct Start {
    /// The instance.
    pub(crate) host: HostContext,
    /// The runbook it runs.
    pub(crate) runbook: Runbook,
    /// The runbook's syntax tree, compiled once for every instance.
    pub(crate) ast: Arc<rhai::AST>,
    /// Builtin libraries for its engine.
    pub(crate) libraries: Vec<Installer>,
    /// What its engine gets before the runbook runs.
    pub(crate) prepare: Option<Prepare>,
    /// Held until the host's part of the run ends (its lease): another run may take it then.
    pub(crate) hold: Option<Arc<dyn crate::lease::HeldLease>>,
}

/// Starts an instance on a thread named `thread`. A thread that cannot start leaves the run's
/// barriers and batches, so no other host waits for it, and reports the host as not started.
pub(crate) fn spawn_instance(thread: String, start: Start) -> JoinHandle<HostReport> {
    let shared = start.host.shared.clone();
    let name = start.host.info.name.clone();
    let spawned = std::thread::Builder::new()
        .name(thread)
        .stack_size(8 << 20)
        .spawn(move || {
            let Start {
                host,
                runbook,
                ast,
                libraries,
                prepare,
                hold,
            } = start;
            let report = run_instance(host, (&runbook, &ast), &libraries, prepare);
            // The host's part of the run is over: another run may take it now.
            drop(hold);
            report
        });
    spawned.unwrap_or_else(|error| {
        shared.barrier.leave();
        shared.progress.leave(&name);
        shared.rolling.leave(&name);
        std::thread::spawn(move || HostReport::not_started(name, &error))
    })
}

/// Starts every begun instance, waits for them all, and reads what a failed or stopped run
/// left behind on each host.
pub(super) fn run_all(
    plan: &Plan,
    shared: &Arc<RunShared>,
    begun: Vec<Begun>,
    libraries: &[Installer],
    leases: &mut crate::lease::RunLeases,
) -> Vec<HostReport> {
    let mut threads = Vec::new();
    for (info, role, transport, journal, writer) in begun {
        let name = info.name.clone();
        let hold = leases.by_host.remove(&name);
        let mut host = HostContext::new(
            info,
            role,
            Mode::Live,
            shared.clone(),
            transport,
            journal,
            writer,
            plan.runbook.name(),
        )
        .with_debugger(shared.options.debugger.clone());
        if let Some((epoch, owner)) = crate::lease::fence_of(&plan.run_id, hold.as_ref()) {
            host = host.with_fence(epoch, owner);
        }
        let start = Start {
            host,
            runbook: plan.runbook.clone(),
            ast: plan.ast.clone(),
            libraries: libraries.to_vec(),
            prepare: None,
            hold,
        };
        threads.push((name.clone(), spawn_instance(format!("host {name}"), start)));
    }
    let mut hosts: Vec<HostReport> = threads
        .into_iter()
        .map(|(name, handle)| join(name, handle, "the host's thread panicked"))
        .collect();
    if !shared.options.check && !hosts.iter().all(|h| h.status == HostStatus::Done) {
        for host in &mut hosts {
            host.leave_behind(&plan.journal_path(&host.name));
        }
    }
    hosts
}

/// The report of an instance's thread; a thread that panicked failed its host with `panicked`.
pub(crate) fn join(name: String, handle: JoinHandle<HostReport>, panicked: &str) -> HostReport {
    handle.join().unwrap_or_else(|_| HostReport {
        changes: Vec::new(),
        failure: Some(HostFailure::message(&name, panicked.to_owned())),
        name,
        prediction_stopped: None,
        left_behind: Vec::new(),
        reboot_pending: None,
        status: HostStatus::Failed,
    })
}

/// Runs the runbook (compiled as `ast`) on the instance's engine; a failure points at its line.
pub(crate) fn run_runbook(
    engine: &rhai::Engine,
    (runbook, ast): (&Runbook, &rhai::AST),
    host: &HostContext,
) -> Result<(), HostFailure> {
    engine
        .run_ast(ast)
        .map_err(|error| HostFailure::from_rhai(host, runbook, &error))
}

/// How an instance ended: done, stopped (Ctrl-C, too many failures) or failed.
pub(crate) fn ending(result: Result<(), HostFailure>) -> (HostStatus, Option<HostFailure>) {
    match result {
        Ok(()) => (HostStatus::Done, None),
        Err(failure) if failure.cancelled() => (HostStatus::Cancelled, Some(failure)),
        Err(failure) => (HostStatus::Failed, Some(failure)),
    }
}

/// One instance, on its own thread: take a fork slot, run the runbook, record how it ended.
fn run_instance(
    host: HostContext,
    (runbook, ast): (&Runbook, &rhai::AST),
    libraries: &[Installer],
    prepare: Option<Prepare>,
) -> HostReport {
    let host = Arc::new(host);
    let shared = host.shared.clone();
    let departure = shared.barrier.departure();
    let name = host.info.name.clone();
    let left_batches = shared.rolling.departure(&name);
    let left_stages = shared.progress.departure(&name);
    let result = shared
        .forks
        .acquire(&shared.cancel)
        .map_err(ActionError::from)
        .map_err(|e| HostFailure::message(&name, e.to_string()));
    let result = result.and_then(|()| {
        if let Err(refused) = host.refuse_before_first_action() {
            shared.forks.release();
            return Err(HostFailure::refused(&name, &refused));
        }
        let mut engine = build_engine(&runbook.imports(), libraries, shared.options.max_operations);
        bind_host(&mut engine, &host);
        if let Some(prepare) = prepare {
            prepare(&mut engine);
        }
        let outcome = run_runbook(&engine, (runbook, ast), &host);
        shared.forks.release();
        // A check whose prediction stopped at an `expect` ended as planned, not failed.
        match outcome {
            Err(failure) if !failure.cancelled() && host.prediction_stopped().is_some() => Ok(()),
            outcome => outcome,
        }
    });
    let (status, failure) = ending(result);
    let end = host.end_with(status, failure.as_ref());
    if status == HostStatus::Done && end.is_ok() {
        host.prune_fence();
    }
    if status == HostStatus::Failed {
        shared.budget.fail(&name);
        // Under a budget the run is a roll: its first failed host halts it (`halt.rs`).
        if shared.budget.is_limited() && shared.options.max_fail_percent.is_none() {
            host.halt_roll(format!("{name} failed"));
        }
    }
    shared.budget.leave(&name);
    if let (HostStatus::Failed, Ok(mut failed)) = (status, shared.failed.lock()) {
        let reason = failure
            .as_ref()
            .and_then(|f| f.message.lines().next().map(str::to_owned))
            .unwrap_or_else(|| "failed".to_owned());
        failed.insert(name.clone(), reason);
        stop_if_too_many_failed(&shared, failed.len());
    }
    drop((left_batches, left_stages, departure));
    let failure = match end {
        Ok(()) => failure,
        Err(error) => Some(HostFailure::message(&name, error.to_string())),
    };
    HostReport {
        changes: host.changes(),
        failure,
        name,
        prediction_stopped: host.prediction_stopped(),
        left_behind: Vec::new(),
        reboot_pending: host.reboot_pending(),
        status,
    }
}

/// `--max-fail-percent`: once more than that share of the hosts failed, stop the others cleanly
/// (as Ctrl-C does: they finish their current action, and the run stays resumable).
fn stop_if_too_many_failed(shared: &RunShared, failed: usize) {
    let Some(limit) = shared.options.max_fail_percent else {
        return;
    };
    let total = shared.hosts.len().max(1);
    if failed * 100 > usize::from(limit) * total && !shared.cancel.is_cancelled() {
        shared.events.send(RunEvent::Warning {
            host: CONTROLLER.into(),
            message: format!(
                "{failed} of {total} hosts failed, more than --max-fail-percent {limit}: stopping the run"
            ),
        });
        shared.cancel.cancel();
    }
}
