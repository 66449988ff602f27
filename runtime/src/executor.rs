//! Running a runbook on hosts: one instance per host on its own thread, stage barriers, a fork
//! limit, and resume (replay, reconcile, divergence checked before anything runs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rhai::AST;

use crate::ending::failure::HostFailure;
use crate::journal::{
    Assume, DecisionRecord, HostJournal, HostStatus, JOURNAL_VERSION, JournalError, JournalEvent,
    JournalSet, ResumeRecord, RewindRecord, RunHeader, now_millis,
};
use crate::{
    ActionError, Assumptions, Cancel, Clock, EventSink, ExecOutput, ExecRequest, HostContext,
    HostInfo, HostReport, Installer, LocalTransport, Mode, Outline, Role, RunEvent, RunOptions,
    RunReport, RunShared, Runbook, RunbookError, Transport, TransportError, bind_host,
    build_engine,
};

/// A host to run on, with its transport or why it has none.
pub struct RunHost {
    /// The host.
    pub info: HostInfo,
    /// How to reach it.
    pub transport: Result<Box<dyn Transport>, String>,
}

/// Everything one run (or resume) needs.
pub struct RunRequest {
    /// `--assume` for actions whose outcome is unknown (resume only), for all or some hosts.
    pub assume: Option<Assumptions>,
    /// `--from-stage`: forget what the journals hold from this stage on (resume only).
    pub from_stage: Option<String>,
    /// Hosts the selected ones reach through their vars (a `--limit` run's management host):
    /// their transports only, with no instance and no journal.
    pub helpers: Vec<RunHost>,
    /// The hosts, in inventory order.
    pub hosts: Vec<RunHost>,
    /// The inventory file, for the journal header.
    pub inventory: String,
    /// Builtin libraries to install.
    pub libraries: Vec<Installer>,
    /// Options.
    pub options: RunOptions,
    /// `--param` values.
    pub params: BTreeMap<String, String>,
    /// Whether this continues the journals in `run_dir`.
    pub resume: bool,
    /// The run's folder.
    pub run_dir: PathBuf,
    /// The run's id.
    pub run_id: String,
    /// The runbook.
    pub runbook: Runbook,
}

/// Why a run did not start.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum RunError {
    /// The runbook does not compile.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Compile(#[from] RunbookError),
    /// The edited runbook no longer matches what the journals recorded.
    #[error("the runbook no longer matches the journal of {} host(s); nothing was run", .0.iter().map(HostFailure::host_count).sum::<usize>())]
    #[diagnostic(code(cairn::runtime::diverged))]
    Diverged(#[related] Vec<HostFailure>),
    /// A journal cannot be read or written.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Journal(#[from] JournalError),
    /// Actions whose outcome is unknown need the operator's answer.
    #[error("{} action(s) started but their outcome was not recorded; nothing was run", .0.iter().map(HostFailure::host_count).sum::<usize>())]
    #[diagnostic(
        code(cairn::runtime::needs_decision),
        help(
            "if they happened: `cairn resume --assume done`; to run them again: `cairn resume --assume redo`; when hosts differ, answer per host: `--assume HOST=done`, `--assume HOST=redo` (repeatable; a bare answer covers the hosts not named)"
        )
    )]
    NeedsDecision(#[related] Vec<HostFailure>),
    /// Actions answered `done` whose output was lost, where the runbook reads that output:
    /// `done` has no result to give them, and an empty one would decide the runbook's next step.
    #[error("{} action(s) answered `done` lost their output, which the runbook reads; nothing was run", .0.iter().map(HostFailure::host_count).sum::<usize>())]
    #[diagnostic(
        code(cairn::runtime::unknown_result),
        help(
            "`done` would hand the runbook an empty result here (for `run`: code 0, empty stdout and stderr) and it would decide what runs next from it. If the command only reads the host, run it again: `--assume HOST=redo` (or mark it `read_only` in the runbook); if it changed the host and did finish, `cairn resume --from-stage STAGE` runs the stage again from its start"
        )
    )]
    UnknownResult(#[related] Vec<HostFailure>),
    /// Hosts another run holds, or the lease folder failing.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Leases(#[from] crate::lease::TakeError),
    /// A `--param` the runbook does not declare, or a secret that must be given again.
    #[error("{message}")]
    #[diagnostic(code(cairn::runtime::param))]
    Param {
        /// What is wrong.
        message: String,
        /// The declared params.
        #[help]
        help: Option<String>,
    },
}

/// Runs (or resumes) a runbook on every host of `request`.
pub fn execute(
    request: RunRequest,
    cancel: Cancel,
    events: EventSink,
) -> Result<RunReport, RunError> {
    let RunRequest {
        assume,
        from_stage,
        helpers,
        hosts,
        inventory,
        libraries,
        options,
        params,
        resume,
        run_dir,
        run_id,
        runbook,
    } = request;
    let engine = build_engine(&runbook.imports(), &libraries, options.max_operations);
    let ast = runbook.compile(&engine)?;
    let outline = Outline::of(&ast);
    check_params(&outline, &params)?;
    let secret_names: Vec<&str> = outline
        .params
        .iter()
        .filter(|p| p.secret)
        .map(|p| p.name.as_str())
        .collect();
    for (name, value) in &params {
        if secret_names.contains(&name.as_str()) {
            crate::secrets::register(value);
        }
    }
    let assume = assume.unwrap_or_default();

    let mut participants: Vec<(HostInfo, Role, Box<dyn Transport>)> = hosts
        .into_iter()
        .map(|host| {
            let name = host.info.name.clone();
            let transport = host
                .transport
                .unwrap_or_else(|reason| Box::new(Unreachable { host: name, reason }));
            (host.info, Role::Host, transport)
        })
        .collect();
    let host_infos: Vec<HostInfo> = participants.iter().map(|(info, ..)| info.clone()).collect();
    if outline.has_controller_stages() {
        let info = HostInfo {
            groups: vec!["controller".into()],
            name: "controller".into(),
            vars: BTreeMap::new(),
        };
        participants.push((info, Role::Controller, Box::new(LocalTransport)));
    }
    let journal_path = |name: &str| run_dir.join(format!("{name}.jsonl"));

    let mut recorded: BTreeMap<String, HostJournal> = BTreeMap::new();
    let mut journals = JournalSet::default();
    if resume {
        for (info, ..) in &participants {
            let path = journal_path(&info.name);
            if path.exists() {
                let journal = HostJournal::load_for_resume(&path)?;
                if let Some(line) = journal.torn_line {
                    events.send(RunEvent::Warning {
                        host: info.name.clone(),
                        message: format!(
                            "line {line} of {} was torn by a crash during a write and was dropped",
                            path.display()
                        ),
                    });
                }
                recorded.insert(info.name.clone(), journal);
            }
        }
        // Every journal is opened before any is written: a resume that cannot write one of
        // them has changed none (docs/journal.md).
        let writable = participants
            .iter()
            .filter(|(info, ..)| !options.check || recorded.contains_key(&info.name))
            .map(|(info, ..)| (info.name.clone(), journal_path(&info.name)));
        journals = JournalSet::open_all(writable)?;
        settle_before_start(
            &engine,
            &mut recorded,
            &mut journals,
            from_stage.as_deref(),
            &assume,
            &journal_path,
        )?;
        for (host, journal) in recorded.iter_mut() {
            if let Some(assume) = assume.for_host(host) {
                for action in journal.actions.values_mut() {
                    if action.outcome.is_none() && action.intent.reconcile == "ask" {
                        action.decision = Some(assume);
                    }
                }
            }
        }
        // A resume with other `--param` values can diverge as an edit can: both are verified
        // before anything runs, rather than failing host by host mid-run.
        let shown_params = crate::secrets::redact_params(&params, &secret_names);
        if recorded.values().any(|j| {
            j.header
                .as_ref()
                .is_none_or(|h| h.runbook_hash != runbook.hash || h.params != shown_params)
        }) {
            verify(
                &runbook,
                &ast,
                &libraries,
                &options,
                &params,
                &participants,
                &host_infos,
                &recorded,
            )?;
        }
    }

    let mut leases = if options.check {
        crate::lease::RunLeases::default()
    } else {
        take_leases(
            &participants,
            &run_id,
            &run_dir,
            &options,
            &cancel,
            &events,
            resume,
        )?
    };
    let mut shared = RunShared::new(
        participants.len(),
        host_infos.clone(),
        options,
        params.clone(),
        cancel,
        events,
    );
    if resume {
        announce_left_behind(&recorded, &shared.events);
    }
    // The budget survives a resume: a host its journal left in maintenance mode holds its
    // place from the start.
    for (host, journal) in &recorded {
        let left_in_maintenance = journal
            .actions
            .values()
            .filter(|a| a.intent.builtin == "esxcli::maintenance_mode_set")
            .filter_map(|a| a.outcome.as_ref().filter(|o| o.ok))
            .filter_map(|o| o.result.get("enabled").and_then(serde_json::Value::as_bool))
            .next_back()
            .unwrap_or(false);
        if left_in_maintenance {
            shared.budget.resume_in_maintenance(host);
        }
    }
    for journal_host in &recorded {
        let published = journal_host.1.published();
        if let Ok(mut all) = shared.published.lock() {
            all.insert(journal_host.0.clone(), published);
        }
    }
    for helper in helpers {
        let host = helper.info.name.clone();
        let transport = helper
            .transport
            .unwrap_or_else(|reason| Box::new(Unreachable { host, reason }));
        shared
            .transports
            .insert(helper.info.name, Arc::new(Mutex::new(transport)));
    }
    let mut instances = Vec::new();
    for (info, role, transport) in participants {
        let transport = Arc::new(Mutex::new(transport));
        shared
            .transports
            .insert(info.name.clone(), transport.clone());
        instances.push((info, role, transport));
    }
    let shared = Arc::new(shared);
    let header = |host: &str| RunHeader {
        at: now_millis(),
        host: host.to_owned(),
        hosts: host_infos.iter().map(|h| h.name.clone()).collect(),
        inventory: inventory.clone(),
        params: crate::secrets::redact_params(&params, &secret_names),
        run_id: run_id.clone(),
        runbook: runbook.name(),
        runbook_hash: runbook.hash.clone(),
        version: JOURNAL_VERSION,
    };

    // Every journal is begun before any host is touched, and run.json then says so: from then
    // on a missing or headerless journal was lost, not "not started yet". A host whose journal
    // cannot be opened (a name the file system refuses, too many open files) fails the run
    // before anything runs, instead of leaving the hosts already started waiting for it at the
    // first barrier.
    let mut begun = Vec::new();
    for (info, role, transport) in instances {
        let path = journal_path(&info.name);
        let journal = recorded.remove(&info.name).unwrap_or_default();
        let writer = if shared.options.check {
            None
        } else {
            let mut writer = match journals.take(&info.name) {
                Some(writer) => writer,
                None => crate::journal::JournalWriter::open(&path)?,
            };
            let first = match journal.header {
                None => JournalEvent::Header(header(&info.name)),
                Some(_) => JournalEvent::Resume(ResumeRecord { at: now_millis() }),
            };
            writer.append(&first, true)?;
            if let Some(index) = leases.taken_over.iter().position(|(h, _)| *h == info.name) {
                let (_, from) = leases.taken_over.swap_remove(index);
                shared.events.send(RunEvent::Warning {
                    host: info.name.clone(),
                    message: format!(
                        "took the host over from {}: that process ended while it held the host",
                        from.describe()
                    ),
                });
                let record = crate::journal::LeaseRecord {
                    at: now_millis(),
                    taken_over_from: from,
                };
                writer.append(&JournalEvent::Lease(record), true)?;
            }
            Some(writer)
        };
        begun.push((info, role, transport, journal, writer));
    }
    if !shared.options.check {
        crate::run::store::mark_begun(&run_dir)?;
    }
    shared.events.send(RunEvent::RunStarted {
        check: shared.options.check,
        hosts: host_infos.iter().map(|h| h.name.clone()).collect(),
        params: crate::secrets::redact_params(&params, &secret_names),
        resume,
        run_id: run_id.clone(),
        runbook: runbook.name(),
        schema: crate::run::event::EVENTS_SCHEMA_VERSION,
        stages: outline.stages.iter().map(|s| s.name.clone()).collect(),
    });
    let mut threads = Vec::new();
    for (info, role, transport, journal, writer) in begun {
        let (instance_shared, runbook, libraries) =
            (shared.clone(), runbook.clone(), libraries.clone());
        let name = info.name.clone();
        let lease = leases.by_host.remove(&name);
        let spawned = std::thread::Builder::new()
            .name(format!("host {name}"))
            .stack_size(8 << 20)
            .spawn(move || {
                let debugger = instance_shared.options.debugger.clone();
                let host = HostContext::new(
                    info,
                    role,
                    Mode::Live,
                    instance_shared,
                    transport,
                    journal,
                    writer,
                    runbook.name(),
                )
                .with_debugger(debugger);
                let report = run_instance(host, &runbook, &libraries);
                // The host's part of the run is over: another run may take it now.
                drop(lease);
                report
            });
        match spawned {
            Ok(handle) => threads.push((name, handle)),
            Err(error) => {
                shared.barrier.leave();
                shared.rolling.leave(&name);
                let report = HostReport::not_started(name.clone(), &error);
                threads.push((name, std::thread::spawn(move || report)));
            }
        }
    }
    let mut hosts: Vec<HostReport> = threads
        .into_iter()
        .map(|(name, handle)| {
            handle.join().unwrap_or_else(|_| HostReport {
                changes: Vec::new(),
                failure: Some(HostFailure::message(
                    &name,
                    "the host's thread panicked".into(),
                )),
                name,
                prediction_stopped: None,
                left_behind: Vec::new(),
                reboot_pending: None,
                status: HostStatus::Failed,
            })
        })
        .collect();
    if !shared.options.check && !hosts.iter().all(|h| h.status == HostStatus::Done) {
        for host in &mut hosts {
            host.leave_behind(&journal_path(&host.name));
        }
    }
    Ok(RunReport {
        halted: shared.halt.reason(),
        hosts,
        run_id,
    })
}

/// Takes the lease of every host the run acts on, before it acts on any (docs/fleet.md). A new
/// run refused for a held host leaves no run folder behind, so `cairn resume` finds the run
/// that holds it, not this one.
fn take_leases(
    participants: &[(HostInfo, Role, Box<dyn Transport>)],
    run_id: &str,
    run_dir: &std::path::Path,
    options: &RunOptions,
    cancel: &Cancel,
    events: &EventSink,
    resume: bool,
) -> Result<crate::lease::RunLeases, RunError> {
    let hosts: Vec<(String, String)> = participants
        .iter()
        .filter(|(_, role, _)| *role == Role::Host)
        .filter_map(|(info, _, transport)| Some((info.name.clone(), transport.identity()?)))
        .collect();
    let state_dir = run_dir
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap_or(run_dir);
    let holder = crate::lease::Holder::this_process(run_id, state_dir);
    let waiting = |host: &str, by: &crate::lease::Holder| {
        events.send(RunEvent::Warning {
            host: host.to_owned(),
            message: format!("waiting: {host} is held by {}", by.describe()),
        });
    };
    let store = options.lease_dir.as_deref().map_or_else(
        crate::lease::FolderLeases::from_env,
        crate::lease::FolderLeases::at,
    );
    let taken = crate::lease::take_all(
        &store,
        &hosts,
        &holder,
        options.wait_for_hosts,
        cancel,
        &waiting,
    );
    if taken.is_err() && !resume {
        let _ = std::fs::remove_dir_all(run_dir);
    }
    Ok(taken?)
}

/// Compiles `runbook` with the instance's engine and runs it; a failure points at its line.
pub(crate) fn run_runbook(
    engine: &rhai::Engine,
    runbook: &Runbook,
    host: &HostContext,
) -> Result<(), HostFailure> {
    match runbook.compile(engine) {
        Ok(ast) => engine
            .run_ast(&ast)
            .map_err(|error| HostFailure::from_rhai(host, runbook, &error)),
        Err(error) => Err(HostFailure::message(&host.info.name, error.to_string())),
    }
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
fn run_instance(host: HostContext, runbook: &Runbook, libraries: &[Installer]) -> HostReport {
    let host = Arc::new(host);
    let shared = host.shared.clone();
    let departure = shared.barrier.departure();
    let name = host.info.name.clone();
    let left_batches = shared.rolling.departure(&name);
    let result = shared
        .forks
        .acquire(&shared.cancel)
        .map_err(ActionError::from)
        .map_err(|e| HostFailure::message(&name, e.to_string()));
    let result = result.and_then(|()| {
        let mut engine = build_engine(&runbook.imports(), libraries, shared.options.max_operations);
        bind_host(&mut engine, &host);
        let outcome = run_runbook(&engine, runbook, &host);
        shared.forks.release();
        // A check whose prediction stopped at an `expect` ended as planned, not failed.
        match outcome {
            Err(failure) if !failure.cancelled() && host.prediction_stopped().is_some() => Ok(()),
            outcome => outcome,
        }
    });
    let (status, failure) = ending(result);
    let end = host.end_with(status, failure.as_ref());
    if status == HostStatus::Failed {
        shared.budget.fail(&name);
        // Under a budget the run is a roll: its first failed host halts it (`halt.rs`).
        if shared.budget.is_limited() && shared.options.max_fail_percent.is_none() {
            host.halt_roll(format!("{name} failed"));
        }
    }
    shared.budget.leave(&name);
    if let (HostStatus::Failed, Ok(mut failed)) = (status, shared.failed.lock()) {
        failed.insert(name.clone());
        stop_if_too_many_failed(&shared, failed.len());
    }
    drop((left_batches, departure));
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

/// What a resume settles in the journals before any host starts: `--from-stage`'s rewind and
/// the answers to unknown outcomes.
fn settle_before_start(
    engine: &rhai::Engine,
    recorded: &mut BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    from_stage: Option<&str>,
    assume: &Assumptions,
    journal_path: &dyn Fn(&str) -> PathBuf,
) -> Result<(), RunError> {
    if let Some(stage) = from_stage {
        rewind(recorded, journals, stage)?;
    }
    settle_unknown_outcomes(engine, recorded, journals, assume, journal_path)
}

/// A resume starts by saying what the run it continues left down.
fn announce_left_behind(recorded: &BTreeMap<String, HostJournal>, events: &crate::EventSink) {
    let left: Vec<String> = recorded
        .iter()
        .flat_map(|(host, journal)| crate::left_behind::left_behind(host, journal))
        .map(|left| left.to_string())
        .collect();
    if !left.is_empty() {
        events.send(RunEvent::Warning {
            host: "controller".into(),
            message: format!(
                "the run was left with {}: the resume continues from there",
                left.join(", ")
            ),
        });
    }
}

/// Forgets, in every journal, the actions from the first time the runbook entered `stage` on:
/// a `rewind` record is appended, and the resume runs them again.
fn rewind(
    recorded: &mut BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    stage: &str,
) -> Result<(), RunError> {
    let mut found = false;
    for (host, journal) in recorded.iter_mut() {
        let index = journal.events.iter().find_map(|(_, event)| match event {
            JournalEvent::Stage(record) if record.name == stage => Some(record.index),
            _ => None,
        });
        let Some(index) = index else { continue };
        found = true;
        let from = journal
            .actions
            .values()
            .find(|action| action.intent.stage_index >= index)
            .map(|action| action.intent.seq);
        let Some(seq) = from else { continue };
        let record = RewindRecord {
            at: now_millis(),
            seq,
        };
        if let Some(writer) = journals.get(host) {
            writer.append(&JournalEvent::Rewind(record), true)?;
        }
        journal.actions.retain(|s, _| *s < seq);
        journal.end = None;
    }
    if found {
        Ok(())
    } else {
        Err(RunError::Param {
            message: format!("no host of this run has entered a stage named `{stage}`"),
            help: Some("`cairn journal HOST` shows the stages a host went through".into()),
        })
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
            host: "controller".into(),
            message: format!(
                "{failed} of {total} hosts failed, more than --max-fail-percent {limit}: stopping the run"
            ),
        });
        shared.cancel.cancel();
    }
}

fn check_params(outline: &Outline, params: &BTreeMap<String, String>) -> Result<(), RunError> {
    let declared: BTreeSet<&str> = outline.params.iter().map(|p| p.name.as_str()).collect();
    for (name, value) in params {
        if !declared.contains(name.as_str()) {
            return Err(RunError::Param {
                message: format!("--param `{name}`: the runbook declares no such param"),
                help: Some(format!(
                    "declared: {}",
                    declared.iter().copied().collect::<Vec<_>>().join(", ")
                )),
            });
        }
        if value == crate::secrets::REDACTED {
            return Err(RunError::Param {
                message: format!(
                    "param `{name}` is secret and was not kept: give it again with --param {name}=..."
                ),
                help: None,
            });
        }
    }
    Ok(())
}

/// Actions recorded without an outcome that only the operator can settle: record the answer, or
/// refuse to start.
fn settle_unknown_outcomes(
    engine: &rhai::Engine,
    recorded: &BTreeMap<String, HostJournal>,
    journals: &mut JournalSet,
    assume: &Assumptions,
    journal_path: &dyn Fn(&str) -> PathBuf,
) -> Result<(), RunError> {
    let mut waiting = Vec::new();
    let mut unknown_results = Vec::new();
    let mut answered = Vec::new();
    for (host, journal) in recorded {
        for action in journal
            .unfinished()
            .filter(|action| action.intent.reconcile == "ask" && action.decision.is_none())
        {
            let intent = &action.intent;
            match assume.for_host(host) {
                Some(Assume::Done)
                    if crate::check::result_is_read(
                        engine,
                        &intent.file,
                        intent.line,
                        intent.column,
                    ) =>
                {
                    unknown_results.push(HostFailure::unknown_result(
                        host,
                        &journal_path(host),
                        action,
                    ));
                }
                Some(assume) => answered.push((host, intent.seq, assume)),
                None => waiting.push(HostFailure::needs_decision(
                    host,
                    &journal_path(host),
                    action,
                )),
            }
        }
    }
    // A host left without an answer, or with one that would invent a result, stops the resume
    // before any answer is recorded.
    if !waiting.is_empty() {
        return Err(RunError::NeedsDecision(crate::output::group_failures(
            waiting,
        )));
    }
    if !unknown_results.is_empty() {
        return Err(RunError::UnknownResult(crate::output::group_failures(
            unknown_results,
        )));
    }
    for (host, seq, assume) in answered {
        let record = DecisionRecord {
            assume,
            at: now_millis(),
            seq,
        };
        if let Some(writer) = journals.get(host) {
            writer.append(&JournalEvent::Decision(record), true)?;
        }
    }
    Ok(())
}

/// Replays every host's journal against the edited runbook, touching no host, and refuses to
/// start if any recorded action no longer matches.
#[allow(clippy::too_many_arguments)]
fn verify(
    runbook: &Runbook,
    ast: &AST,
    libraries: &[Installer],
    options: &RunOptions,
    params: &BTreeMap<String, String>,
    participants: &[(HostInfo, Role, Box<dyn Transport>)],
    hosts: &[HostInfo],
    recorded: &BTreeMap<String, HostJournal>,
) -> Result<(), RunError> {
    let shared = Arc::new(RunShared::new(
        participants.len(),
        hosts.to_vec(),
        options.clone(),
        params.clone(),
        Cancel::default(),
        EventSink::none(),
    ));
    if let Ok(mut published) = shared.published.lock() {
        for (host, journal) in recorded {
            published.insert(host.clone(), journal.published());
        }
    }
    let mut diverged = Vec::new();
    for (info, role, _) in participants {
        let Some(journal) = recorded.get(&info.name) else {
            continue;
        };
        let transport: Arc<Mutex<Box<dyn Transport>>> =
            Arc::new(Mutex::new(Box::new(Unreachable {
                host: info.name.clone(),
                reason: "verifying".into(),
            })));
        let host = Arc::new(HostContext::new(
            info.clone(),
            *role,
            Mode::Verify,
            shared.clone(),
            transport,
            journal.clone(),
            None,
            runbook.name(),
        ));
        let mut engine = build_engine(&runbook.imports(), libraries, options.max_operations);
        bind_host(&mut engine, &host);
        if let Err(error) = engine.run_ast(ast) {
            let failure = HostFailure::from_rhai(&host, runbook, &error);
            if failure.diverged() {
                diverged.push(failure);
            }
        }
    }
    if diverged.is_empty() {
        Ok(())
    } else {
        Err(RunError::Diverged(crate::output::group_failures(diverged)))
    }
}

/// A host that cannot be reached at all: every command fails with the reason.
struct Unreachable {
    host: String,
    reason: String,
}

impl Transport for Unreachable {
    fn exec(&mut self, _: &ExecRequest) -> Result<ExecOutput, TransportError> {
        Err(TransportError::Unreachable {
            host: self.host.clone(),
            reason: self.reason.clone(),
        })
    }

    fn clock(&self) -> Clock {
        Clock::Real
    }

    fn describe(&self) -> String {
        format!("unreachable ({})", self.reason)
    }

    fn identity(&self) -> Option<String> {
        None
    }
}
