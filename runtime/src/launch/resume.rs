//! Resuming a run: which run, its journals checked for loss, its runbook (moved or not), the
//! params and options a resume may change, then the executor with `resume` set.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{LaunchError, Launcher, absolute, prepare_fds, vault_error};
use crate::journal::{JournalError, JournalEvent, now_millis};
use crate::resume_choices::{AskUndecided, ask_each, resolve_stage, undecided};
use crate::{
    Assumptions, Cancel, CompiledRunbook, EventSink, ParamFile, RunMeta, RunOptions, RunReport,
    RunRequest, Runbook, VaultSecrets, execute,
};

impl Launcher {
    /// Resumes run `id` (default: the newest unfinished one).
    pub fn resume(
        &self,
        id: Option<String>,
        assume: Assumptions,
        overrides: RunOverrides,
        cancel: Cancel,
        events: EventSink,
    ) -> Result<RunReport, LaunchError> {
        let id = self.resume_id(id, &events)?;
        // Held until the resume ends; a second driver is refused before it reads or writes.
        let _lock = self.runs.lock(&id)?;
        let mut meta = self.runs.meta(&id)?;
        let journals: Vec<String> = meta
            .hosts
            .iter()
            .cloned()
            .chain(meta.controller.then(|| crate::CONTROLLER.to_owned()))
            .collect();
        check_named_hosts(&meta, &journals, &assume, &overrides)?;
        if meta.begun && self.run_progressed(&id, &journals) {
            self.restart_lost_journals(&id, &journals, &overrides.restart_hosts)?;
        }
        let runbook = self.resume_runbook(&mut meta, &journals, overrides.runbook.as_deref())?;
        let inventory = self.inventory(&meta.inventory)?;
        // An edit since the run started may have brought a typo (or a second stage of a name
        // `--from-stage` looks for): it is refused before any host is touched, as on `run`.
        let compiled = CompiledRunbook::compile(runbook, &self.libraries, meta.max_operations)?;
        self.check_runbook(&compiled, &inventory, &events)?;
        let from_stage = overrides
            .from_stage
            .as_deref()
            .map(|given| resolve_stage(&compiled.outline, given))
            .transpose()?;
        let mut assume = assume;
        if let Some(ask) = &overrides.ask {
            let pending = undecided(&self.runs.run_dir(&id), &journals, &assume);
            ask_each(ask, &pending, &mut assume)?;
        }
        let vault = overrides.vault.clone();
        let vault = vault.as_deref();
        let prepared = resumed_params(&compiled, &meta, &overrides, vault)?;
        crate::vault_use::check_credentials(&inventory, &meta.hosts, vault).map_err(vault_error)?;
        let prepared = compiled.with_params(prepared)?;
        super::check_budget_groups(overrides.max_unavailable.as_ref(), &inventory)?;
        let mut options = resume_options(overrides, &meta);
        options.fleet = super::shares::resumed(&meta, &inventory, &options)?;
        let (hosts, helpers) =
            self.hosts_and_helpers(&inventory, &meta.hosts, options.accept_new_host_keys, vault);
        let lease_files = options.shared_store.is_none();
        prepare_fds(&inventory, &meta.hosts, &options, lease_files, &events)?;
        let request = RunRequest {
            assume: Some(assume),
            from_stage,
            helpers,
            hosts,
            inventory: meta.inventory.display().to_string(),
            libraries: self.libraries.clone(),
            options,
            prepared,
            resume: true,
            run_dir: self.runs.run_dir(&id),
            run_id: id,
        };
        Ok(execute(request, cancel, events)?)
    }

    /// The run a resume continues: the one named, else the newest unfinished one (warning
    /// about the newer ones it skipped).
    fn resume_id(&self, id: Option<String>, events: &EventSink) -> Result<String, LaunchError> {
        if let Some(id) = id {
            return Ok(self.runs.known_id(&id)?);
        }
        let (latest, skipped) = self.runs.latest_resumable();
        for message in skipped {
            events.send(crate::RunEvent::Warning {
                host: crate::CONTROLLER.into(),
                message,
            });
        }
        latest.ok_or_else(|| LaunchError::NoRun(self.runs.root().display().to_string()))
    }

    /// The run's runbook: where `--runbook` says it moved, else where it was.
    fn resume_runbook(
        &self,
        meta: &mut RunMeta,
        journals: &[String],
        moved_to: Option<&Path>,
    ) -> Result<Runbook, LaunchError> {
        match moved_to {
            Some(path) => self.moved_runbook(meta, journals, path),
            None if !meta.runbook.exists() => Err(LaunchError::Flag {
                message: format!(
                    "run {}'s runbook `{}` is gone; nothing was run",
                    meta.run_id,
                    meta.runbook.display()
                ),
                help: Some(
                    "if it moved, pass its new place: `cairn resume --runbook PATH` (its content must be the one the run started with)"
                        .into(),
                ),
            }),
            None => Ok(self.as_started(meta, Runbook::load(&meta.runbook)?)),
        }
    }

    /// `runbook` with its imports resolved as the run's were: rooted where run.json says (a
    /// stored run's working copy), its folders before `--lib`.
    fn as_started(&self, meta: &RunMeta, runbook: Runbook) -> Runbook {
        let search: Vec<PathBuf> = meta
            .import_dirs
            .iter()
            .chain(&self.lib_path)
            .cloned()
            .collect();
        runbook
            .with_lib_path(&search)
            .with_import_root(meta.import_root.clone())
    }

    /// `--runbook PATH`: the runbook of a run whose file moved, accepted only when its
    /// content hash is the one the journals' headers recorded; `run.json` then points at it.
    fn moved_runbook(
        &self,
        meta: &mut RunMeta,
        journals: &[String],
        path: &Path,
    ) -> Result<Runbook, LaunchError> {
        let runbook = self.as_started(meta, Runbook::load(path)?);
        let recorded = journals.iter().find_map(|host| {
            crate::journal::HostJournal::load(&self.runs.journal_path(&meta.run_id, host), false)
                .ok()
                .and_then(|journal| journal.header)
                .map(|header| header.runbook_hash)
        });
        match recorded {
            Some(hash) if hash == runbook.hash => {
                meta.runbook = absolute(path);
                self.runs.create(meta)?;
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
            let Ok(text) = std::fs::read_to_string(self.runs.journal_path(id, host)) else {
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
            let path = self.runs.journal_path(id, host);
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
}

/// The resumed run's params, merged: the run's own (`run.json`, secrets as `<redacted>`), then
/// `--param-file`'s and `--param`'s over them, then the vault's secrets; each source checked
/// where its values came from, with every secret registered before any check shows a value.
fn resumed_params(
    compiled: &CompiledRunbook,
    meta: &RunMeta,
    overrides: &RunOverrides,
    vault: Option<&VaultSecrets>,
) -> Result<BTreeMap<String, String>, LaunchError> {
    let (runbook, ast) = (&compiled.runbook, &*compiled.ast);
    let mut params = meta.params.clone();
    if let Some(file) = &overrides.param_file {
        params.extend(file.params());
    }
    params.extend(overrides.params.clone());
    crate::vault_use::fill_secret_params(runbook, ast, &mut params, vault)?;
    compiled.register_secrets(&params);
    if let Some((message, help)) =
        crate::vault_use::missing_for_resume(meta.vault.as_ref(), &params, vault)
    {
        return Err(LaunchError::Flag {
            message: format!("run {}: {message}; nothing was run", meta.run_id),
            help: Some(help),
        });
    }
    if let Some(file) = &overrides.param_file {
        file.check(ast)?;
    }
    crate::secret_params::check_given(runbook, ast, &params, vault)?;
    Ok(params)
}

/// Refuses `--assume HOST=...` and `--restart-host HOST` for a host the run has no journal of.
fn check_named_hosts(
    meta: &RunMeta,
    journals: &[String],
    assume: &Assumptions,
    overrides: &RunOverrides,
) -> Result<(), LaunchError> {
    // The controller can have pending actions even in a run.json from before `controller`.
    let mut answerable = journals.to_vec();
    if !meta.controller {
        answerable.push(crate::CONTROLLER.to_owned());
    }
    for host in assume.hosts.keys() {
        known_host("--assume", host, &answerable)?;
    }
    for host in &overrides.restart_hosts {
        known_host("--restart-host", host, journals)?;
    }
    Ok(())
}

/// The resume's options: what `overrides` changes, the run's own for the rest.
fn resume_options(overrides: RunOverrides, meta: &RunMeta) -> RunOptions {
    RunOptions {
        accept_new_host_keys: overrides.accept_new_host_keys,
        check: false,
        debugger: overrides.debugger,
        forks: overrides.forks.unwrap_or(RunOptions::default().forks),
        max_fail_percent: overrides.max_fail_percent,
        max_unavailable: overrides
            .max_unavailable
            .or_else(|| meta.max_unavailable.clone()),
        max_operations: meta.max_operations,
        reboot_timeout: overrides
            .reboot_timeout
            .unwrap_or(Duration::from_secs(meta.reboot_timeout_secs)),
        wait_for_hosts: overrides.wait_for_hosts,
        lease_dir: None,
        shared_store: overrides.shared_store,
        fleet: None,
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
    pub max_unavailable: Option<crate::Budgets>,
    /// Run again from the first time this stage was entered.
    pub from_stage: Option<String>,
    /// Params given again (secrets, which the journal does not keep).
    pub params: BTreeMap<String, String>,
    /// `--param-file`: params given again from a file, which `params` override.
    pub param_file: Option<ParamFile>,
    /// `--vault`: the secrets of `secret(...)` params and hosts' credentials.
    pub vault: Option<Arc<VaultSecrets>>,
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
    /// `--store URL`: the shared store the run is on (its working copy is this launcher's).
    pub shared_store: Option<Arc<dyn crate::SharedStore>>,
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
