//! Starting and resuming runs from files: inventory, runbook, run folder, transports. A resume's
//! own steps are in `resume.rs`.

mod resume;
mod shares;

pub use resume::RunOverrides;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::inventory::{Address, HostPattern, HostSpec, Inventory};
use crate::journal::now_millis;
pub use crate::launch_error::LaunchError;
use crate::sim::{SimHost, SimRegistry, SimTransport};
use crate::ssh::{FdDemand, FdLimitError, SshOptions, SshTarget, SshTransport, prepare_fd_limit};
use crate::{
    Cancel, CompiledRunbook, EventSink, FleetShare, HostInfo, Installer, LocalTransport, OpenCause,
    PackPin, ParamFile, PreparedRun, RunFolders, RunHost, RunMeta, RunOptions, RunReport,
    RunRequest, Runbook, Transport, TransportError, VaultSecrets, check_groups, check_params,
    check_runbook, execute,
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
    pub vault: Option<Arc<VaultSecrets>>,
    /// The pack the runbook belongs to, if it is a pack's (kept in `run.json`).
    pub pack: Option<PackPin>,
    /// `--controllers N`: the run's hosts cut into N shares, this controller driving the first
    /// (`fleet.rs`); 1 (or 0) for a run of one controller.
    pub controllers: u32,
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
    /// The run folders under the state folder.
    pub runs: RunFolders,
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
        let compiled =
            CompiledRunbook::compile(runbook, &self.libraries, new.options.max_operations)?;
        self.check_runbook(&compiled, &inventory, &events)?;
        let hosts = selected(&inventory, new.limit.as_ref())?;
        let mut new = new;
        let vault_held = new.vault.take();
        let vault = vault_held.as_deref();
        let (prepared, taken) = self.prepare(compiled, &inventory, &hosts, &mut new, vault)?;
        let outline = &prepared.compiled.outline;
        check_budget_groups(new.options.max_unavailable.as_ref(), &inventory)?;
        shares::check(new.controllers, &new.options, outline, hosts.len())?;
        let options = &new.options;
        // This controller keeps open only its share's journals and sessions.
        let driven = FleetShare::split(&hosts, new.controllers)
            .into_iter()
            .next()
            .map_or_else(Vec::new, |(_, hosts)| hosts);
        let lease_files = options.shared_store.is_none();
        prepare_fds(&inventory, &driven, options, lease_files, &events)?;
        let (run_id, _lock) = self.claim_run_id(&new.options)?;
        let (hosts, fleet) =
            match shares::cut(&run_id, &hosts, new.controllers, &inventory, &new.options)? {
                Some((first, plan)) => (first, Some(plan)),
                None => (hosts, None),
            };
        let meta = RunMeta {
            at: now_millis(),
            begun: false,
            controller: outline.has_controller_stages(),
            hosts,
            inventory: absolute(&new.inventory),
            max_operations: new.options.max_operations,
            max_unavailable: new.options.max_unavailable.clone(),
            pack: new.pack.clone(),
            params: prepared.params.shown(),
            reboot_timeout_secs: new.options.reboot_timeout.as_secs(),
            run_id: run_id.clone(),
            runbook: absolute(&new.runbook),
            import_root: None,
            import_dirs: Vec::new(),
            fleet: fleet.as_ref().map(|plan| plan.share.clone()),
            vault: crate::VaultUse::of(vault, taken),
        };
        new.options.fleet = fleet;
        let run_dir = if new.options.check {
            self.runs.root().join("checks")
        } else {
            self.runs.create(&meta)?
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
            prepared,
            resume: false,
            run_dir,
            run_id,
        };
        Ok(execute(request, cancel, events)?)
    }

    /// A new run's id, and the lock of its folder (reserved in the shared store too, when
    /// there is one). A check changes nothing and leaves no run to resume, so it claims none.
    fn claim_run_id(
        &self,
        options: &RunOptions,
    ) -> Result<(String, Option<crate::run::lock::RunLock>), LaunchError> {
        if options.check {
            return Ok((self.runs.new_run_id(), None));
        }
        let shared = options.shared_store.as_ref();
        let (id, lock) = self
            .runs
            .claim_where(|id| shared.map_or(Ok(true), |store| store.reserve_run_id(id)))?;
        Ok((id, Some(lock)))
    }

    /// Loads an inventory, checking its `sim:` addresses against the simulator's models, and
    /// each simulated host's saved state against its model and options: a host made with
    /// another model, or from other options (another lab's host of the same name), is refused
    /// here, before any run starts, not when its transport opens.
    pub fn inventory(&self, path: &Path) -> Result<Inventory, LaunchError> {
        let models = self.sim_models.clone();
        let check = move |address: &Address| crate::sim::check_address(&models, address);
        let inventory = Inventory::load_checked(path, Some(&check))?;
        let simulated = |spec: &HostSpec| matches!(spec.address, Address::Sim { .. });
        if inventory.hosts().iter().any(simulated) {
            SimHost::check_sim_dir()?;
        }
        for spec in inventory.hosts() {
            if let Address::Sim { model, options } = &spec.address {
                let dir = SimHost::default_dir(self.runs.root(), &spec.name);
                SimHost::check_state(&dir, &spec.name, model, options)?;
            }
        }
        Ok(inventory)
    }

    /// The run's params, read once: `--param-file`'s, then `--param`'s over them, then the
    /// vault's secrets, each source checked where its values came from (a `--param` at the
    /// command line, the file at its line, a secret without a value at its `param` line), then
    /// all of them converted to their defaults' types. Any refusal stops the run before it is
    /// created. The names of the secrets taken from the vault are returned too.
    fn prepare(
        &self,
        compiled: CompiledRunbook,
        inventory: &Inventory,
        hosts: &[String],
        new: &mut NewRun,
        vault: Option<&VaultSecrets>,
    ) -> Result<(PreparedRun, Vec<String>), LaunchError> {
        let (runbook, ast) = (&compiled.runbook, &*compiled.ast);
        let given = std::mem::take(&mut new.params);
        let mut params = new
            .param_file
            .as_ref()
            .map(ParamFile::params)
            .unwrap_or_default();
        params.extend(given.clone());
        let mut taken = crate::vault_use::fill_secret_params(runbook, ast, &mut params, vault)?;
        // Every secret is registered before any param is checked, so a message shows each
        // value whole or redacted whole, whichever source gave the secret it holds.
        compiled.register_secrets(&params);
        taken.extend(
            crate::vault_use::check_credentials(inventory, hosts, vault).map_err(vault_error)?,
        );
        check_params(ast, &given)?;
        if let Some(file) = &new.param_file {
            file.check(ast)?;
        }
        crate::secret_params::check_given(runbook, ast, &params, vault)?;
        Ok((compiled.with_params(params)?, taken))
    }

    /// What `cairn check -i` finds: the checks of the compiled runbook, and stages on groups
    /// the inventory lacks.
    fn check_runbook(
        &self,
        compiled: &CompiledRunbook,
        inventory: &Inventory,
        events: &EventSink,
    ) -> Result<(), LaunchError> {
        let (runbook, ast) = (&compiled.runbook, &*compiled.ast);
        let mut problems = check_runbook(&compiled.engine, ast, runbook);
        let groups = check_groups(ast, runbook, inventory);
        problems.extend(groups.errors);
        if !problems.is_empty() {
            return Err(LaunchError::Check {
                problems,
                runbook: runbook.name(),
            });
        }
        for message in groups.warnings {
            events.send(crate::RunEvent::Warning {
                host: crate::CONTROLLER.into(),
                message,
            });
        }
        Ok(())
    }

    /// The run's `selected` hosts, and the helpers their vars name (`inventory::helpers`),
    /// each with its transport.
    fn hosts_and_helpers(
        &self,
        inventory: &Inventory,
        selected: &[String],
        accept_new_host_keys: bool,
        vault: Option<&VaultSecrets>,
    ) -> (Vec<RunHost>, Vec<RunHost>) {
        let helpers: std::collections::HashSet<String> =
            crate::inventory::helpers(inventory.hosts(), selected)
                .into_iter()
                .collect();
        let selected: std::collections::HashSet<&String> = selected.iter().collect();
        // Only these hosts' transports are opened: a share leaves the others' to their own
        // controllers.
        inventory
            .hosts()
            .iter()
            .filter(|spec| selected.contains(&spec.name) || helpers.contains(&spec.name))
            .map(|spec| RunHost {
                info: HostInfo {
                    groups: spec.groups.clone(),
                    name: spec.name.clone(),
                    vars: spec.vars.clone(),
                },
                transport: self.open(spec, accept_new_host_keys, vault),
            })
            .partition(|host| selected.contains(&host.info.name))
    }

    /// The transport for one inventory host; `vault` holds the credentials its vars name.
    /// Why it cannot be made is typed (`TransportError::NotOpened`), and reaches the failure
    /// report whole.
    pub fn open(
        &self,
        spec: &HostSpec,
        accept_new_host_keys: bool,
        vault: Option<&VaultSecrets>,
    ) -> Result<Box<dyn Transport>, TransportError> {
        let not_opened = |cause: std::sync::Arc<dyn miette::Diagnostic + Send + Sync>| {
            TransportError::NotOpened {
                host: spec.name.clone(),
                cause: OpenCause(cause),
            }
        };
        match &spec.address {
            Address::Local => Ok(Box::new(LocalTransport)),
            Address::Sim { model, options } => {
                let Some(model) = self.sim_models.get(model) else {
                    // The inventory's check of its addresses refused it already.
                    return Err(TransportError::Unreachable {
                        host: spec.name.clone(),
                        reason: format!("no simulator model `{model}`"),
                    });
                };
                let dir = SimHost::default_dir(self.runs.root(), &spec.name);
                SimTransport::new(&spec.name, &dir, model, options.clone())
                    .map(|t| Box::new(t) as Box<dyn Transport>)
                    .map_err(|e| not_opened(std::sync::Arc::new(e)))
            }
            Address::Ssh { host, port, user } => {
                let mut options = SshOptions::for_host(&spec.vars, vault)
                    .map_err(|e| not_opened(std::sync::Arc::new(e)))?;
                options.accept_new_host_keys = accept_new_host_keys;
                let target = SshTarget::resolve(host, *port, user.as_deref(), &options)
                    .map_err(|e| not_opened(std::sync::Arc::new(e)))?;
                Ok(Box::new(SshTransport::new(&spec.name, target, options)))
            }
        }
    }
}

/// The names of the hosts `--limit` selects, in inventory order (every host without it).
fn selected(
    inventory: &Inventory,
    limit: Option<&HostPattern>,
) -> Result<Vec<String>, LaunchError> {
    let specs: Vec<&HostSpec> = match limit {
        Some(limit) => limit.select(inventory)?,
        None => inventory.hosts().iter().collect(),
    };
    Ok(specs.into_iter().map(|h| h.name.clone()).collect())
}

/// A group `--max-unavailable` names must be one of the inventory's: a typo would leave that
/// group without a limit.
pub(super) fn check_budget_groups(
    budgets: Option<&crate::Budgets>,
    inventory: &Inventory,
) -> Result<(), LaunchError> {
    let Some(budgets) = budgets else {
        return Ok(());
    };
    let known: std::collections::BTreeSet<String> =
        inventory.group_names().iter().cloned().collect();
    match budgets.unknown_groups(&known).first() {
        None => Ok(()),
        Some((group, near)) => Err(LaunchError::BudgetGroup {
            message: format!("--max-unavailable {budgets}: the inventory has no group `{group}`"),
            help: Some(match near {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!(
                    "its groups: {}",
                    known.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            }),
        }),
    }
}

/// Raises the open-file limit for the run's hosts (each keeps its journal open, an SSH host its
/// session too), with a warning when it stays short of the most the run may need, and an error
/// when even the hard limit cannot hold the journals.
fn prepare_fds(
    inventory: &Inventory,
    hosts: &[String],
    options: &RunOptions,
    lease_files: bool,
    events: &EventSink,
) -> Result<(), FdLimitError> {
    let (forks, check) = (options.forks, options.check);
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
        lease_files,
    };
    if let Some(message) = prepare_fd_limit(demand)? {
        events.send(crate::RunEvent::Warning {
            host: crate::CONTROLLER.into(),
            message,
        });
    }
    Ok(())
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

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}
