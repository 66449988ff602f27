//! Starting and resuming runs from files: inventory, runbook, run folder, transports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::inventory::{Address, HostSpec, Inventory, InventoryError};
use crate::journal::{Assume, JournalError, now_millis};
use crate::sim::{SimRegistry, SimTransport};
use crate::ssh::{SshOptions, SshTarget, SshTransport, prepare_fd_limit};
use crate::{
    Cancel, EventSink, HostInfo, Installer, LocalTransport, Outline, ParamError, RunError, RunHost,
    RunMeta, RunOptions, RunReport, RunRequest, RunStore, Runbook, RunbookError, Transport,
    build_engine, check_groups, check_params, check_runbook, execute,
};

/// What the command line chose for a new run.
#[derive(Debug, Clone)]
pub struct NewRun {
    /// The inventory file.
    pub inventory: PathBuf,
    /// Options.
    pub options: RunOptions,
    /// `--param` values.
    pub params: BTreeMap<String, String>,
    /// The runbook file.
    pub runbook: PathBuf,
}

/// What can stop a run before it starts.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum LaunchError {
    /// The inventory is wrong.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Inventory(#[from] InventoryError),
    /// A journal or run folder is unreadable.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Journal(#[from] JournalError),
    /// There is no run to resume.
    #[error("no unfinished run in `{0}`")]
    #[diagnostic(code(cairn::runtime::no_run), help("`cairn runs` lists the runs"))]
    NoRun(String),
    /// The run refused to start.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Run(#[from] RunError),
    /// The runbook is unreadable.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Runbook(#[from] RunbookError),
    /// `cairn check` finds problems in the runbook: nothing was run.
    #[error("{} problem(s) in {runbook}; nothing was run", problems.len())]
    #[diagnostic(
        code(cairn::runtime::check),
        help("`cairn check RUNBOOK -i INVENTORY` finds these without running anything")
    )]
    Check {
        /// The problems, each with its span.
        #[related]
        problems: Vec<RunbookError>,
        /// The runbook.
        runbook: String,
    },
    /// A `--param` the runbook cannot take.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Param(#[from] ParamError),
}

/// Starts and resumes runs under one state folder, with the builtins and simulator models the
/// binary wires in.
pub struct Launcher {
    /// Builtin libraries.
    pub libraries: Vec<Installer>,
    /// Simulator models by name.
    pub sim_models: Arc<SimRegistry>,
    /// The run store.
    pub store: RunStore,
}

impl Launcher {
    /// Runs `new` as a new run.
    pub fn run(
        &self,
        new: NewRun,
        cancel: Cancel,
        events: EventSink,
    ) -> Result<RunReport, LaunchError> {
        let runbook = Runbook::load(&new.runbook)?;
        let inventory = self.inventory(&new.inventory)?;
        self.preflight(&runbook, &inventory, &new.params, &events)?;
        let secrets = secret_params(&runbook, &self.libraries, new.options.max_operations)?;
        let run_id = self.store.new_run_id();
        let meta = RunMeta {
            at: now_millis(),
            hosts: inventory.hosts().iter().map(|h| h.name.clone()).collect(),
            inventory: absolute(&new.inventory),
            max_operations: new.options.max_operations,
            params: redact(&new.params, &secrets),
            reboot_timeout_secs: new.options.reboot_timeout.as_secs(),
            run_id: run_id.clone(),
            runbook: absolute(&new.runbook),
        };
        // A check changes nothing and leaves no run to resume.
        let run_dir = if new.options.check {
            self.store.root().join("checks")
        } else {
            self.store.create(&meta)?
        };
        warn_of_fd_limit(&inventory, &meta.hosts, new.options.forks, &events);
        let request = RunRequest {
            assume: None,
            from_stage: None,
            hosts: self.hosts(&inventory, new.options.accept_new_host_keys),
            inventory: meta.inventory.display().to_string(),
            libraries: self.libraries.clone(),
            options: new.options,
            params: new.params,
            resume: false,
            run_dir,
            run_id,
            runbook,
        };
        Ok(execute(request, cancel, events)?)
    }

    /// Resumes run `id` (default: the newest unfinished one).
    pub fn resume(
        &self,
        id: Option<String>,
        assume: Option<Assume>,
        overrides: RunOverrides,
        cancel: Cancel,
        events: EventSink,
    ) -> Result<RunReport, LaunchError> {
        let id = match id.or_else(|| self.store.latest_resumable()) {
            Some(id) => id,
            None => return Err(LaunchError::NoRun(self.store.root().display().to_string())),
        };
        let meta = self.store.meta(&id)?;
        let runbook = Runbook::load(&meta.runbook)?;
        let inventory = self.inventory(&meta.inventory)?;
        // An edit since the run started may have brought a typo (or a second stage of a name
        // `--from-stage` looks for): it is refused before any host is touched, as on `run`.
        self.check_runbook(&runbook, &inventory, &events)?;
        let mut params = meta.params.clone();
        params.extend(overrides.params);
        let options = RunOptions {
            accept_new_host_keys: overrides.accept_new_host_keys,
            check: false,
            debugger: overrides.debugger,
            forks: overrides.forks.unwrap_or(RunOptions::default().forks),
            max_fail_percent: overrides.max_fail_percent,
            max_operations: meta.max_operations,
            reboot_timeout: overrides
                .reboot_timeout
                .unwrap_or(Duration::from_secs(meta.reboot_timeout_secs)),
        };
        let hosts = self
            .hosts(&inventory, options.accept_new_host_keys)
            .into_iter()
            .filter(|host| meta.hosts.contains(&host.info.name))
            .collect();
        warn_of_fd_limit(&inventory, &meta.hosts, options.forks, &events);
        let request = RunRequest {
            assume,
            from_stage: overrides.from_stage,
            hosts,
            inventory: meta.inventory.display().to_string(),
            libraries: self.libraries.clone(),
            options,
            params,
            resume: true,
            run_dir: self.store.run_dir(&id),
            run_id: id,
            runbook,
        };
        Ok(execute(request, cancel, events)?)
    }

    /// Loads an inventory, checking its `sim:` addresses against the simulator's models.
    pub fn inventory(&self, path: &Path) -> Result<Inventory, InventoryError> {
        let models = self.sim_models.clone();
        let check = move |address: &Address| crate::sim::check_address(&models, address);
        Inventory::load_checked(path, Some(&check))
    }

    /// What `cairn check` finds, and stages on groups the inventory lacks, and `--param`
    /// values the runbook cannot take: any of them stops the run before it is created.
    pub fn preflight(
        &self,
        runbook: &Runbook,
        inventory: &Inventory,
        params: &BTreeMap<String, String>,
        events: &EventSink,
    ) -> Result<(), LaunchError> {
        let ast = self.check_runbook(runbook, inventory, events)?;
        check_params(&ast, params)?;
        Ok(())
    }

    /// What `cairn check -i` finds; the compiled runbook when nothing.
    fn check_runbook(
        &self,
        runbook: &Runbook,
        inventory: &Inventory,
        events: &EventSink,
    ) -> Result<rhai::AST, LaunchError> {
        let engine = build_engine(&runbook.dir(), &self.libraries, u64::MAX);
        let ast = runbook.compile(&engine)?;
        let mut problems = check_runbook(&engine, &ast, runbook);
        let groups = check_groups(&ast, runbook, inventory);
        problems.extend(groups.errors);
        if !problems.is_empty() {
            return Err(LaunchError::Check {
                problems,
                runbook: runbook.name(),
            });
        }
        for message in groups.warnings {
            events.send(crate::RunEvent::Warning {
                host: "controller".into(),
                message,
            });
        }
        Ok(ast)
    }

    fn hosts(&self, inventory: &Inventory, accept_new_host_keys: bool) -> Vec<RunHost> {
        inventory
            .hosts()
            .iter()
            .map(|spec| RunHost {
                info: HostInfo {
                    groups: spec.groups.clone(),
                    name: spec.name.clone(),
                    vars: spec.vars.clone(),
                },
                transport: self.open(spec, accept_new_host_keys),
            })
            .collect()
    }

    /// The transport for one inventory host.
    pub fn open(
        &self,
        spec: &HostSpec,
        accept_new_host_keys: bool,
    ) -> Result<Box<dyn Transport>, String> {
        match &spec.address {
            Address::Local => Ok(Box::new(LocalTransport)),
            Address::Sim { model, options } => {
                let model = self
                    .sim_models
                    .get(model)
                    .ok_or_else(|| format!("no simulator model `{model}`"))?;
                let dir = self.store.root().join("sim").join(&spec.name);
                SimTransport::new(&spec.name, &dir, model, options.clone())
                    .map(|t| Box::new(t) as Box<dyn Transport>)
                    .map_err(|e| e.to_string())
            }
            Address::Ssh { host, port, user } => {
                let mut options = SshOptions::for_host(&spec.vars).map_err(|e| e.to_string())?;
                options.accept_new_host_keys = accept_new_host_keys;
                let target = SshTarget::resolve(host, *port, user.as_deref(), &options)
                    .map_err(|e| e.to_string())?;
                Ok(Box::new(SshTransport::new(&spec.name, target, options)))
            }
        }
    }
}

/// What `cairn resume` may change for the rest of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOverrides {
    /// SSH: record the keys of hosts known_hosts does not know.
    pub accept_new_host_keys: bool,
    /// `--debug-on-failure`: the debugger failed actions wait for.
    pub debugger: Option<Arc<crate::Debugger>>,
    /// A new fork limit.
    pub forks: Option<usize>,
    /// Stop once more than this percentage of hosts have failed.
    pub max_fail_percent: Option<u8>,
    /// Run again from the first time this stage was entered.
    pub from_stage: Option<String>,
    /// Params given again (secrets, which the journal does not keep).
    pub params: BTreeMap<String, String>,
    /// A new reboot timeout.
    pub reboot_timeout: Option<Duration>,
}

/// Raises the open-file limit for the run's SSH hosts (each keeps its session open), with a
/// warning when it stays too low.
fn warn_of_fd_limit(inventory: &Inventory, hosts: &[String], forks: usize, events: &EventSink) {
    let ssh_hosts = inventory
        .hosts()
        .iter()
        .filter(|spec| hosts.contains(&spec.name) && matches!(spec.address, Address::Ssh { .. }))
        .count();
    if let Some(message) = prepare_fd_limit(ssh_hosts, forks) {
        events.send(crate::RunEvent::Warning {
            host: "controller".into(),
            message,
        });
    }
}

fn secret_params(
    runbook: &Runbook,
    libraries: &[Installer],
    max_operations: u64,
) -> Result<Vec<String>, RunbookError> {
    let engine = build_engine(&runbook.dir(), libraries, max_operations);
    let outline = Outline::of(&runbook.compile(&engine)?);
    Ok(outline
        .params
        .into_iter()
        .filter(|p| p.secret)
        .map(|p| p.name)
        .collect())
}

fn redact(params: &BTreeMap<String, String>, secrets: &[String]) -> BTreeMap<String, String> {
    params
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                if secrets.contains(k) {
                    "<redacted>".to_owned()
                } else {
                    v.clone()
                },
            )
        })
        .collect()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}
