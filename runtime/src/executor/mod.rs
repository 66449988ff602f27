//! Running a runbook on hosts: one instance per host on its own thread, stage barriers, a fork
//! limit, and resume (replay, reconcile, divergence checked before anything runs). `execute`
//! here is the order of the steps; a resume's settling and verifying is `resume.rs`, the state
//! the instances share and their journals' first records `begin.rs`, one instance on its thread
//! `instance.rs` (also how the debugger starts its one).
//!
//! `execute`'s steps: params checked, participants, resume, leases, shared state, journals begun,
//! instances run. `resume.rs` reads and opens every journal before any is written, rewinds for
//! `--from-stage`, applies `--assume`'s answers and replays to verify an edited runbook; `begin.rs`
//! takes the leases, carries a resume's shared state over and begins every journal before any host
//! is touched; `instance.rs` (`spawn_instance`) is the one way a run's host and the debugger's host
//! start on a thread, and how a host's part ends; `run_modules.rs` names the module files a runbook
//! imports, for a shared store to keep with the run; `fence_folders.rs` checks every fenced host's
//! folder before any acts, refusing hosts that share one together.

mod begin;
mod fence_folders;
mod instance;
mod prepared;
mod resume;
mod run_modules;

pub(crate) use instance::{Prepare, Start, join, spawn_instance};
pub use prepared::{CompiledRunbook, PreparedRun};

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::CONTROLLER;
use crate::ending::failure::HostFailure;
use crate::journal::{JournalError, JournalSet};
use crate::{
    Assumptions, Cancel, Clock, EventSink, ExecOutput, ExecRequest, HostInfo, Installer,
    LocalTransport, Outline, Role, RunOptions, RunParams, RunReport, RunShared, Runbook,
    RunbookError, Transport, TransportError,
};

/// A host to run on, with its transport or why it has none.
pub struct RunHost {
    /// The host.
    pub info: HostInfo,
    /// How to reach it, or why it cannot be reached.
    pub transport: Result<Box<dyn Transport>, TransportError>,
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
    /// The runbook compiled and the params checked, once.
    pub prepared: PreparedRun,
    /// Whether this continues the journals in `run_dir`.
    pub resume: bool,
    /// The run's folder.
    pub run_dir: PathBuf,
    /// The run's id.
    pub run_id: String,
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
    /// A host taken over from a dead holder refused this run's claim on its fence: another
    /// controller took it since. Nothing was run on any host.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Claim(crate::TransportError),
    /// A `--param` the runbook cannot take, or a secret that must be given again.
    #[error(transparent)]
    #[diagnostic(transparent)]
    BadParam(#[from] crate::ParamError),
    /// `--from-stage` names a stage no host entered.
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
        prepared,
        resume,
        run_dir,
        run_id,
    } = request;
    let PreparedRun { compiled, params } = prepared;
    let CompiledRunbook {
        runbook,
        ast,
        outline,
        engine,
    } = compiled;
    let participants = participants(hosts, &outline);
    let host_infos = run_hosts(&participants);
    let modules = match &options.shared_store {
        Some(_) => run_modules::run_modules(&engine, &ast, &runbook),
        None => crate::RunModules::default(),
    };
    let plan = Plan {
        ast,
        host_infos,
        inventory,
        params,
        run_dir,
        run_id,
        runbook,
        modules,
    };

    let (mut recorded, mut journals) = if resume {
        let resuming = resume::Resuming {
            assume: assume.unwrap_or_default(),
            ast: &plan.ast,
            engine: &engine,
            from_stage: from_stage.as_deref(),
            libraries: &libraries,
            options: &options,
        };
        resuming.open(&plan, &participants, &events)?
    } else {
        (BTreeMap::new(), JournalSet::default())
    };
    let mut leases = if options.check {
        crate::lease::RunLeases::default()
    } else {
        begin::take_leases(&participants, &plan, &options, &cancel, &events, resume)?
    };
    let shared = RunShared::new(
        participants.len(),
        plan.host_infos.clone(),
        options,
        plan.params.clone(),
        cancel,
        events,
    );
    if resume {
        resume::announce_left_behind(&recorded, &shared.events);
    }
    let (shared, instances) = begin::share(shared, &recorded, helpers, participants);
    let begun = begin::begin_journals(
        &plan,
        &shared,
        instances,
        &mut recorded,
        &mut journals,
        &mut leases,
    )?;
    begin::announce_start(&plan, &shared, &outline, resume);
    if !shared.options.check {
        let fenced: Vec<String> = (plan.host_infos.iter())
            .map(|host| host.name.clone())
            .filter(|host| crate::lease::fence_of(&plan.run_id, leases.by_host.get(host)).is_some())
            .collect();
        fence_folders::refuse_shared_folders(&shared, &fenced);
    }
    let hosts = instance::run_all(&plan, &shared, begun, &libraries, &mut leases);
    drop(journals);
    Ok(RunReport {
        halted: shared.halt.reason(),
        hosts,
        run_id: plan.run_id,
    })
}

/// What every step of a run reads: the runbook, where its journals go, and what they say in
/// their header.
struct Plan {
    /// The runbook's syntax tree, shared by every instance.
    ast: std::sync::Arc<rhai::AST>,
    /// Every host of the run, in inventory order.
    host_infos: Vec<HostInfo>,
    /// The inventory file, for the journal header.
    inventory: String,
    /// The params, checked and converted.
    params: RunParams,
    /// The run's folder.
    run_dir: PathBuf,
    /// The run's id.
    run_id: String,
    /// The runbook.
    runbook: Runbook,
    /// The modules the runbook imports, for a shared store to keep with the run (found only
    /// when there is one).
    modules: crate::RunModules,
}

impl Plan {
    /// Where `host`'s journal is.
    fn journal_path(&self, host: &str) -> PathBuf {
        self.run_dir.join(format!("{host}.jsonl"))
    }
}

/// A host's instance to be: who it is, in which role, and its transport.
type Participant = (HostInfo, Role, Box<dyn Transport>);

/// The run's hosts, as runbooks and the journals' headers see them: not the controller.
fn run_hosts(participants: &[Participant]) -> Vec<HostInfo> {
    (participants.iter())
        .filter(|(_, role, _)| *role == Role::Host)
        .map(|(info, ..)| info.clone())
        .collect()
}

/// The run's instances: every host (an unreachable one with a transport that says why), then
/// the controller when the runbook has `on controller` stages.
fn participants(hosts: Vec<RunHost>, outline: &Outline) -> Vec<Participant> {
    let mut participants: Vec<Participant> = hosts
        .into_iter()
        .map(|host| {
            let name = host.info.name.clone();
            let transport = host
                .transport
                .unwrap_or_else(|error| Box::new(NotOpened::new(name, error)));
            (host.info, Role::Host, transport)
        })
        .collect();
    if outline.has_controller_stages() {
        let info = HostInfo {
            groups: vec![CONTROLLER.into()],
            name: CONTROLLER.into(),
            vars: BTreeMap::new(),
        };
        participants.push((info, Role::Controller, Box::new(LocalTransport)));
    }
    participants
}

/// A host whose transport could not be made: every command fails with why, typed.
pub(super) struct NotOpened {
    host: String,
    cause: crate::transport_error::OpenCause,
}

impl NotOpened {
    pub(super) fn new(host: String, error: TransportError) -> Self {
        let cause = match error {
            TransportError::NotOpened { cause, .. } => cause,
            other => crate::transport_error::OpenCause(std::sync::Arc::new(other)),
        };
        Self { host, cause }
    }
}

impl Transport for NotOpened {
    fn exec(&mut self, _: &ExecRequest) -> Result<ExecOutput, TransportError> {
        Err(TransportError::NotOpened {
            host: self.host.clone(),
            cause: self.cause.clone(),
        })
    }

    fn clock(&self) -> Clock {
        Clock::Real
    }

    fn describe(&self) -> String {
        format!("unreachable ({})", self.cause)
    }

    fn identity(&self) -> Option<String> {
        None
    }
}

/// A host not reached while the journals are verified: every command fails with the reason.
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
