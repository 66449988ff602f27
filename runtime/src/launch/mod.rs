//! Starting and resuming runs from files: inventory, runbook, run folder, transports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use cairn_vault::Vault;

use crate::inventory::{Address, HostPattern, HostSpec, Inventory};
use crate::journal::{JournalError, JournalEvent, now_millis};
pub use crate::launch_error::LaunchError;
use crate::resume_choices::{AskUndecided, ask_each, resolve_stage, undecided};
use crate::sim::{SimHost, SimRegistry, SimTransport};
use crate::ssh::{FdDemand, FdLimitError, SshOptions, SshTarget, SshTransport, prepare_fd_limit};
use crate::{
    Assumptions, Cancel, EventSink, HostInfo, Installer, LocalTransport, Outline, ParamFile,
    RunHost, RunMeta, RunOptions, RunReport, RunRequest, RunStore, Runbook, RunbookError,
    Transport, build_engine, check_groups, check_params, check_runbook, execute,
};

/// What the command line chose for a new run.
#[derive(Debug, Clone)]
pub struct NewRun {
    /// The inventory file.
    pub inventory: PathBuf,
    /// `--limit`: the inventory's hosts the run is on (every host when `None`).
    pub limit: Option<HostPattern>,
    /// Options.
    pub options: RunOptions,
    /// `--param` values.
    pub params: BTreeMap<String, String>,
    /// `--param-file`: plain params, which `params` override.
    pub param_file: Option<ParamFile>,
    /// The runbook file.
    pub runbook: PathBuf,
    /// `--vault`: the secrets of `secret(...)` params and hosts' credentials.
    pub vault: Option<Arc<Vault>>,
}

/// Starts and resumes runs under one state folder, with the builtins and simulator models the
/// binary wires in.
pub struct Launcher {
    /// `--lib` and CAIRN_PATH folders, where runbooks' imports are looked up last.
    pub lib_path: Vec<PathBuf>,
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
        let runbook = Runbook::load(&new.runbook)?.with_lib_path(&self.lib_path);
        let inventory = self.inventory(&new.inventory)?;
        let outline = outline(&runbook, &self.libraries, new.options.max_operations)?;
        let mut new = new;
        let vault_held = new.vault.take();
        let vault = vault_held.as_deref();
        let ast = self.preflight(&runbook, &inventory, &new.params, &events)?;
        if let Some(file) = &new.param_file {
            file.check(&ast)?;
            let mut params = file.params();
            params.append(&mut new.params);
            new.params = params;
        }
        crate::vault_use::fill_secret_params(&outline, &mut new.params, vault);
        check_params(&ast, &new.params)?;
        let secrets = secret_params(&outline);
        let hosts: Vec<String> = match &new.limit {
            Some(limit) => limit.select(&inventory)?,
            None => inventory.hosts().iter().collect(),
        }
        .into_iter()
        .map(|h| h.name.clone())
        .collect();
        crate::vault_use::check_credentials(&inventory, &hosts, vault).map_err(vault_error)?;
        let options = &new.options;
        prepare_fds(&inventory, &hosts, options.forks, options.check, &events)?;
        // A check changes nothing and leaves no run to resume, so it claims no folder.
        let (run_id, _lock) = if new.options.check {
            (self.store.new_run_id(), None)
        } else {
            let (id, lock) = self.store.claim()?;
            (id, Some(lock))
        };
        let meta = RunMeta {
            at: now_millis(),
            begun: false,
            controller: outline.has_controller_stages(),
            hosts,
            inventory: absolute(&new.inventory),
            max_operations: new.options.max_operations,
            max_unavailable: new.options.max_unavailable,
            params: crate::secrets::redact_params(
                &new.params,
                &secrets.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            reboot_timeout_secs: new.options.reboot_timeout.as_secs(),
            run_id: run_id.clone(),
            runbook: absolute(&new.runbook),
        };
        let run_dir = if new.options.check {
            self.store.root().join("checks")
        } else {
            self.store.create(&meta)?
        };
        let (hosts, helpers) = self.hosts_and_helpers(
            &inventory,
            &meta.hosts,
            new.options.accept_new_host_keys,
            vault,
        );
        let request = RunRequest {
            assume: None,
            from_stage: None,
            helpers,
            hosts,
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
        assume: Assumptions,
        overrides: RunOverrides,
        cancel: Cancel,
        events: EventSink,
    ) -> Result<RunReport, LaunchError> {
        let id = match id {
            Some(id) => self.store.known_id(&id)?,
            None => {
                let (latest, skipped) = self.store.latest_resumable();
                for message in skipped {
                    events.send(crate::RunEvent::Warning {
                        host: "controller".into(),
                        message,
                    });
                }
                latest.ok_or_else(|| LaunchError::NoRun(self.store.root().display().to_string()))?
            }
        };
        // Held until the resume ends; a second driver is refused before it reads or writes.
        let _lock = self.store.lock(&id)?;
        let meta = self.store.meta(&id)?;
        let journals: Vec<String> = meta
            .hosts
            .iter()
            .cloned()
            .chain(meta.controller.then(|| "controller".to_owned()))
            .collect();
        // The controller can have pending actions even in a run.json from before `controller`.
        let mut answerable = journals.clone();
        if !meta.controller {
            answerable.push("controller".to_owned());
        }
        for host in assume.hosts.keys() {
            known_host("--assume", host, &answerable)?;
        }
        for host in &overrides.restart_hosts {
            known_host("--restart-host", host, &journals)?;
        }
        if meta.begun && self.run_progressed(&id, &journals) {
            self.restart_lost_journals(&id, &journals, &overrides.restart_hosts)?;
        }
        let mut meta = meta;
        let runbook = match &overrides.runbook {
            Some(path) => self.moved_runbook(&mut meta, &journals, path)?,
            None if !meta.runbook.exists() => {
                return Err(LaunchError::Flag {
                    message: format!(
                        "run {id}'s runbook `{}` is gone; nothing was run",
                        meta.runbook.display()
                    ),
                    help: Some(
                        "if it moved, pass its new place: `cairn resume --runbook PATH` (its content must be the one the run started with)"
                            .into(),
                    ),
                });
            }
            None => Runbook::load(&meta.runbook)?.with_lib_path(&self.lib_path),
        };
        let inventory = self.inventory(&meta.inventory)?;
        // An edit since the run started may have brought a typo (or a second stage of a name
        // `--from-stage` looks for): it is refused before any host is touched, as on `run`.
        self.check_runbook(&runbook, &inventory, &events)?;
        let stages = outline(&runbook, &self.libraries, meta.max_operations)?;
        let from_stage = overrides
            .from_stage
            .as_deref()
            .map(|given| resolve_stage(&stages, given))
            .transpose()?;
        let mut assume = assume;
        if let Some(ask) = &overrides.ask {
            let pending = undecided(&self.store.run_dir(&id), &journals, &assume);
            ask_each(ask, &pending, &mut assume)?;
        }
        let mut params = meta.params.clone();
        let vault = overrides.vault.as_deref();
        crate::vault_use::fill_secret_params(&stages, &mut params, vault);
        if let Some(file) = &overrides.param_file {
            file.check(&self.check_runbook(&runbook, &inventory, &events)?)?;
            params.extend(file.params());
        }
        params.extend(overrides.params);
        crate::vault_use::check_credentials(&inventory, &meta.hosts, vault).map_err(vault_error)?;
        let options = RunOptions {
            accept_new_host_keys: overrides.accept_new_host_keys,
            check: false,
            debugger: overrides.debugger,
            forks: overrides.forks.unwrap_or(RunOptions::default().forks),
            max_fail_percent: overrides.max_fail_percent,
            max_unavailable: overrides.max_unavailable.or(meta.max_unavailable),
            max_operations: meta.max_operations,
            reboot_timeout: overrides
                .reboot_timeout
                .unwrap_or(Duration::from_secs(meta.reboot_timeout_secs)),
            wait_for_hosts: overrides.wait_for_hosts,
            lease_dir: None,
        };
        let (hosts, helpers) =
            self.hosts_and_helpers(&inventory, &meta.hosts, options.accept_new_host_keys, vault);
        prepare_fds(&inventory, &meta.hosts, options.forks, false, &events)?;
        let request = RunRequest {
            assume: Some(assume),
            from_stage,
            helpers,
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

    /// `--runbook PATH`: the runbook of a run whose file moved, accepted only when its
    /// content hash is the one the journals' headers recorded; `run.json` then points at it.
    fn moved_runbook(
        &self,
        meta: &mut RunMeta,
        journals: &[String],
        path: &Path,
    ) -> Result<Runbook, LaunchError> {
        let runbook = Runbook::load(path)?.with_lib_path(&self.lib_path);
        let recorded = journals.iter().find_map(|host| {
            crate::journal::HostJournal::load(&self.store.journal_path(&meta.run_id, host), false)
                .ok()
                .and_then(|journal| journal.header)
                .map(|header| header.runbook_hash)
        });
        match recorded {
            Some(hash) if hash == runbook.hash => {
                meta.runbook = absolute(path);
                self.store.create(meta)?;
                Ok(runbook)
            }
            Some(hash) => Err(LaunchError::Flag {
                message: format!(
                    "--runbook {}: its content is not the runbook run {} started with (sha256 {} there, {} here); nothing was run",
                    path.display(),
                    meta.run_id,
                    &hash[..hash.len().min(12)],
                    &runbook.hash[..runbook.hash.len().min(12)]
                ),
                help: Some(format!(
                    "to resume after an edit, put the edited runbook at `{}`: the resume then verifies the edit against the journals",
                    meta.runbook.display()
                )),
            }),
            None => Err(LaunchError::Flag {
                message: format!(
                    "--runbook {}: run {} has no journal header to compare it with; nothing was run",
                    path.display(),
                    meta.run_id
                ),
                help: None,
            }),
        }
    }

    /// Whether a host of run `id` may have acted: some journal has a record past its header
    /// (hosts act only once every journal is begun), or no journal is left to tell. A run killed
    /// while it was beginning its journals has only headers, and its missing or empty journals
    /// lost nothing.
    fn run_progressed(&self, id: &str, journals: &[String]) -> bool {
        let mut any_header = false;
        for host in journals {
            let Ok(text) = std::fs::read_to_string(self.store.journal_path(id, host)) else {
                continue;
            };
            let mut records = text.lines().filter(|line| !line.trim().is_empty());
            if records.next().is_some_and(|first| {
                matches!(
                    serde_json::from_str::<JournalEvent>(first),
                    Ok(JournalEvent::Header(_))
                )
            }) {
                any_header = true;
                if records.next().is_some() {
                    return true;
                }
            }
        }
        !any_header
    }

    /// Refuses to resume while a host's journal is lost (missing, empty, or without a whole
    /// header): resuming it as a fresh start would run again all it had done. A host named in
    /// `restart` starts from scratch instead; its damaged journal is kept aside.
    fn restart_lost_journals(
        &self,
        id: &str,
        journals: &[String],
        restart: &[String],
    ) -> Result<(), LaunchError> {
        let mut lost = Vec::new();
        for host in journals {
            let path = self.store.journal_path(id, host);
            match (journal_lost(&path), restart.contains(host)) {
                (Some(_), true) if path.exists() => {
                    let aside = path.with_extension(format!("jsonl.lost-{}", now_millis()));
                    std::fs::rename(&path, &aside)
                        .map_err(|e| JournalError::io(&path, "cannot move aside", e))?;
                }
                (Some(_), true) => {}
                (Some(why), false) => lost.push(format!("{host} ({why})")),
                (None, true) => {
                    return Err(LaunchError::Flag {
                        message: format!(
                            "--restart-host {host}: its journal is intact, so it is resumed, not restarted"
                        ),
                        help: Some(
                            "to run a stage again after an edit: `cairn resume --from-stage \"NAME\"`"
                                .into(),
                        ),
                    });
                }
                (None, false) => {}
            }
        }
        if lost.is_empty() {
            Ok(())
        } else {
            Err(LaunchError::LostJournals {
                hosts: lost,
                run_id: id.to_owned(),
            })
        }
    }

    /// Loads an inventory, checking its `sim:` addresses against the simulator's models, and
    /// each simulated host's saved state against its model: a host made with another model
    /// is refused here, before any run starts, not when its transport opens.
    pub fn inventory(&self, path: &Path) -> Result<Inventory, LaunchError> {
        let models = self.sim_models.clone();
        let check = move |address: &Address| crate::sim::check_address(&models, address);
        let inventory = Inventory::load_checked(path, Some(&check))?;
        for spec in inventory.hosts() {
            if let Address::Sim { model, .. } = &spec.address {
                let dir = SimHost::default_dir(self.store.root(), &spec.name);
                SimHost::check_model(&dir, model)?;
            }
        }
        Ok(inventory)
    }

    /// What `cairn check` finds, and stages on groups the inventory lacks, and `--param`
    /// values the runbook cannot take: any of them stops the run before it is created. The
    /// compiled runbook when nothing.
    pub fn preflight(
        &self,
        runbook: &Runbook,
        inventory: &Inventory,
        params: &BTreeMap<String, String>,
        events: &EventSink,
    ) -> Result<rhai::AST, LaunchError> {
        let ast = self.check_runbook(runbook, inventory, events)?;
        check_params(&ast, params)?;
        Ok(ast)
    }

    /// What `cairn check -i` finds; the compiled runbook when nothing.
    fn check_runbook(
        &self,
        runbook: &Runbook,
        inventory: &Inventory,
        events: &EventSink,
    ) -> Result<rhai::AST, LaunchError> {
        let engine = build_engine(&runbook.imports(), &self.libraries, u64::MAX);
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

    /// The run's `selected` hosts, and the helpers their vars name (`inventory::helpers`),
    /// each with its transport.
    fn hosts_and_helpers(
        &self,
        inventory: &Inventory,
        selected: &[String],
        accept_new_host_keys: bool,
        vault: Option<&Vault>,
    ) -> (Vec<RunHost>, Vec<RunHost>) {
        let helpers = crate::inventory::helpers(inventory.hosts(), selected);
        self.hosts(inventory, accept_new_host_keys, vault)
            .into_iter()
            .filter(|host| selected.contains(&host.info.name) || helpers.contains(&host.info.name))
            .partition(|host| selected.contains(&host.info.name))
    }

    fn hosts(
        &self,
        inventory: &Inventory,
        accept_new_host_keys: bool,
        vault: Option<&Vault>,
    ) -> Vec<RunHost> {
        inventory
            .hosts()
            .iter()
            .map(|spec| RunHost {
                info: HostInfo {
                    groups: spec.groups.clone(),
                    name: spec.name.clone(),
                    vars: spec.vars.clone(),
                },
                transport: self.open(spec, accept_new_host_keys, vault),
            })
            .collect()
    }

    /// The transport for one inventory host; `vault` holds the credentials its vars name.
    pub fn open(
        &self,
        spec: &HostSpec,
        accept_new_host_keys: bool,
        vault: Option<&Vault>,
    ) -> Result<Box<dyn Transport>, String> {
        match &spec.address {
            Address::Local => Ok(Box::new(LocalTransport)),
            Address::Sim { model, options } => {
                let model = self
                    .sim_models
                    .get(model)
                    .ok_or_else(|| format!("no simulator model `{model}`"))?;
                let dir = SimHost::default_dir(self.store.root(), &spec.name);
                SimTransport::new(&spec.name, &dir, model, options.clone())
                    .map(|t| Box::new(t) as Box<dyn Transport>)
                    .map_err(|e| e.to_string())
            }
            Address::Ssh { host, port, user } => {
                let mut options =
                    SshOptions::for_host(&spec.vars, vault).map_err(|e| e.to_string())?;
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
    /// A new disruption budget (the run's own when not given).
    pub max_unavailable: Option<crate::MaxUnavailable>,
    /// Run again from the first time this stage was entered.
    pub from_stage: Option<String>,
    /// Params given again (secrets, which the journal does not keep).
    pub params: BTreeMap<String, String>,
    /// `--param-file`: params given again from a file, which `params` override.
    pub param_file: Option<ParamFile>,
    /// `--vault`: the secrets of `secret(...)` params and hosts' credentials.
    pub vault: Option<Arc<Vault>>,
    /// `--restart-host`: hosts whose journal is lost, to run again from scratch.
    pub restart_hosts: Vec<String>,
    /// On a terminal: asks about each action whose outcome is unknown and that `--assume`
    /// does not answer.
    pub ask: Option<AskUndecided>,
    /// `--runbook`: where the run's runbook is now, if it moved.
    pub runbook: Option<PathBuf>,
    /// A new reboot timeout.
    pub reboot_timeout: Option<Duration>,
    /// `--wait-for-hosts`: wait for hosts another run holds.
    pub wait_for_hosts: bool,
}

/// Raises the open-file limit for the run's hosts (each keeps its journal open, an SSH host its
/// session too), with a warning when it stays short of the most the run may need, and an error
/// when even the hard limit cannot hold the journals.
fn prepare_fds(
    inventory: &Inventory,
    hosts: &[String],
    forks: usize,
    check: bool,
    events: &EventSink,
) -> Result<(), FdLimitError> {
    let specs: Vec<&HostSpec> = inventory
        .hosts()
        .iter()
        .filter(|spec| hosts.contains(&spec.name))
        .collect();
    let ssh_hosts = specs
        .iter()
        .filter(|spec| matches!(spec.address, Address::Ssh { .. }))
        .count();
    let demand = FdDemand {
        // The controller's journal too, when the runbook has controller stages.
        journals: if check { 0 } else { specs.len() + 1 },
        ssh_hosts,
        forks,
        hosts: specs.len(),
    };
    if let Some(message) = prepare_fd_limit(demand)? {
        events.send(crate::RunEvent::Warning {
            host: "controller".into(),
            message,
        });
    }
    Ok(())
}

fn outline(
    runbook: &Runbook,
    libraries: &[Installer],
    max_operations: u64,
) -> Result<Outline, RunbookError> {
    let engine = build_engine(&runbook.imports(), libraries, max_operations);
    Ok(Outline::of(&runbook.compile(&engine)?))
}

/// A vault credential a host cannot have, as the launch's error.
fn vault_error(message: String) -> LaunchError {
    LaunchError::Flag {
        message: format!("{message}; nothing was run"),
        help: Some(
            "add the secret with `cairn vault edit FILE`, or fix the host var (docs/vault.md)"
                .into(),
        ),
    }
}

fn secret_params(outline: &Outline) -> Vec<String> {
    outline
        .params
        .iter()
        .filter(|p| p.secret)
        .map(|p| p.name.clone())
        .collect()
}

/// Why the journal at `path` cannot say what its host did, if it cannot. Called only for a run
/// whose journals were all begun (with their header, before any host was touched), so a
/// missing or headerless one was lost (deleted, truncated), never "not started yet".
fn journal_lost(path: &Path) -> Option<&'static str> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some("missing"),
        // Unreadable for another reason: the journal reader reports it.
        Err(_) => return None,
    };
    let Some(first) = text.lines().find(|line| !line.trim().is_empty()) else {
        return Some("empty");
    };
    match serde_json::from_str::<JournalEvent>(first) {
        Ok(JournalEvent::Header(_)) => None,
        Ok(_) => Some("no header record"),
        Err(_) if text.trim() == first.trim() && !text.ends_with('\n') => {
            Some("only a torn header")
        }
        // A corrupt line: the journal reader reports it with its line.
        Err(_) => None,
    }
}

/// Refuses a `flag` value that names no journal of the run, with a did-you-mean.
fn known_host(flag: &str, host: &str, hosts: &[String]) -> Result<(), LaunchError> {
    if hosts.iter().any(|h| h == host) {
        return Ok(());
    }
    let near = crate::inventory::suggest::closest(host, hosts.iter().map(String::as_str));
    Err(LaunchError::Flag {
        message: format!("{flag} {host}: the run has no host `{host}`"),
        help: Some(match near {
            Some(near) => format!(
                "did you mean `{near}`? the run's hosts: {}",
                hosts.join(", ")
            ),
            None => format!("the run's hosts: {}", hosts.join(", ")),
        }),
    })
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}
