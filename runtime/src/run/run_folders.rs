//! Where runs live: `.cairn/runs/<run-id>/`, one journal per host and a `run.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::CONTROLLER;
use crate::journal::{HostJournal, HostStatus, JournalError};
use crate::private_files;
use crate::run::lock::{LockError, RunLock};

/// What a run was asked to do; `cairn resume` reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The hosts of the run, in inventory order.
    pub hosts: Vec<String>,
    /// The inventory file.
    pub inventory: PathBuf,
    /// Script operations per instance.
    pub max_operations: u64,
    /// `--max-unavailable`, kept so a resume keeps the budget (absent in older runs).
    #[serde(default)]
    pub max_unavailable: Option<crate::Budgets>,
    /// Whether every journal of the run was begun (with its header) before any host was
    /// touched; until then a missing journal is one not started yet. Older runs lack the field
    /// and count as begun, the safe side.
    #[serde(default = "begun_by_default")]
    pub begun: bool,
    /// Whether the runbook has `on controller` stages, so a `controller` journal was begun
    /// with the others (absent in older runs: then a missing one is not counted as lost).
    #[serde(default)]
    pub controller: bool,
    /// The pack the runbook belongs to, when it is in one (absent in older runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack: Option<crate::PackPin>,
    /// `--param` values; secret ones are `<redacted>`.
    pub params: BTreeMap<String, String>,
    /// Seconds a reboot may take.
    pub reboot_timeout_secs: u64,
    /// The run's id.
    pub run_id: String,
    /// The runbook file.
    pub runbook: PathBuf,
    /// Where the runbook's imports are rooted instead of its pack or folder: a stored run's
    /// working copy, whose `source/` stands for the pack (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_root: Option<PathBuf>,
    /// Folders searched for its imports before `--lib`: a working copy's modules that came from
    /// the run's `--lib`/`CAIRN_PATH` folders (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub import_dirs: Vec<PathBuf>,
    /// Which share of a run shared between controllers this run is (`--controllers N`,
    /// `fleet.rs`); absent for a run of one controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<crate::FleetShare>,
    /// The vault the run took secrets from, and their names (never their values), so a resume
    /// asks for that vault (absent when it took none, and in older runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vault: Option<crate::VaultUse>,
}

/// A run's state, read from its journals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Every host finished.
    Done,
    /// Some host failed; the others finished.
    Failed,
    /// Some host has not finished (stopped, crashed, or waiting for a decision).
    Unfinished,
}

/// The runs under one state folder.
#[derive(Debug, Clone)]
pub struct RunFolders {
    root: PathBuf,
    /// Where the run folders are: `<root>/runs`, or `<root>/store/runs` for the working copies
    /// of a shared store's runs.
    runs: PathBuf,
}

impl RunFolders {
    /// Runs under `root` (normally `.cairn`).
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_owned(),
            runs: root.join("runs"),
        }
    }

    /// The working copies of a shared store's runs under `root`: `<root>/store/runs/<id>/`,
    /// apart from this folder's own runs (two controllers may give two runs one id).
    pub fn shared_copy(root: &Path) -> Self {
        Self {
            root: root.to_owned(),
            runs: root.join("store").join("runs"),
        }
    }

    /// The state folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of run `id`.
    pub fn run_dir(&self, id: &str) -> PathBuf {
        self.runs.join(id)
    }

    /// A fresh run id: the UTC time (a counter is added when the folder is already taken).
    pub fn new_run_id(&self) -> String {
        let t = crate::utc_time::UtcTime::from_millis(crate::journal::now_millis());
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            t.year, t.month, t.day, t.hour, t.minute, t.second
        )
    }

    /// Claims a folder for a new run and locks it: creating the folder is the claim, so two
    /// runs started in one second get `<time>` and `<time>-2`, never one folder.
    pub fn claim(&self) -> Result<(String, RunLock), LockError> {
        self.claim_where(|_| Ok(true))
    }

    /// [`claim`](Self::claim), where an id is also taken only if `free` says so (a shared
    /// store reserving it across controllers); a folder claimed for an id `free` refuses is
    /// given back.
    pub fn claim_where(
        &self,
        free: impl Fn(&str) -> Result<bool, JournalError>,
    ) -> Result<(String, RunLock), LockError> {
        let runs = self.runs.clone();
        private_files::create_dir_all(&runs)
            .map_err(|e| JournalError::io(&runs, "cannot create", e))?;
        let base = self.new_run_id();
        let mut n = 1;
        loop {
            let id = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let dir = self.run_dir(&id);
            match private_files::create_dir(&dir) {
                Ok(()) => {
                    let free = free(&id);
                    if let Ok(true) = free {
                        return Ok((id.clone(), RunLock::acquire(&dir, &id)?));
                    }
                    // Empty, and ours: another controller's run has this id, or the store
                    // could not say.
                    let _ = std::fs::remove_dir(&dir);
                    match free {
                        Ok(_) if n < 10_000 => n += 1,
                        Ok(_) => {
                            let taken = std::io::Error::from(std::io::ErrorKind::AlreadyExists);
                            return Err(JournalError::io(&dir, "cannot reserve", taken).into());
                        }
                        Err(error) => return Err(error.into()),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 10_000 => n += 1,
                Err(e) => return Err(JournalError::io(&dir, "cannot create", e).into()),
            }
        }
    }

    /// Locks run `id` for a resume; refuses at once if another process drives it.
    pub fn lock(&self, id: &str) -> Result<RunLock, LockError> {
        let dir = self.run_dir(id);
        if !dir.join("run.json").exists() {
            let path = dir.join("run.json");
            return Err(JournalError::io(
                &path,
                "cannot read",
                std::io::Error::from(std::io::ErrorKind::NotFound),
            )
            .into());
        }
        RunLock::acquire(&dir, id)
    }

    /// Writes a claimed run's `run.json` atomically (`0600`).
    pub fn create(&self, meta: &RunMeta) -> Result<PathBuf, JournalError> {
        let dir = self.run_dir(&meta.run_id);
        let path = dir.join("run.json");
        let text = serde_json::to_string_pretty(meta)
            .map_err(|e| JournalError::io(&path, "cannot encode", e.into()))?;
        private_files::write_atomic(&path, text.as_bytes())
            .map_err(|e| JournalError::io(&path, "cannot write", e))?;
        Ok(dir)
    }

    /// Reads run `id`'s `run.json`.
    pub fn meta(&self, id: &str) -> Result<RunMeta, JournalError> {
        let path = self.run_dir(id).join("run.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| JournalError::io(&path, "cannot read", e))?;
        serde_json::from_str(&text).map_err(|e| JournalError::Header {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
    }

    /// Run ids, oldest first.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(&self.runs)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.path().join("run.json").exists())
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .collect();
        ids.sort_by(|a, b| run_id_order(a).cmp(&run_id_order(b)));
        ids
    }

    /// `id` if it is a run here, else the nearest run id and the list (`cairn resume 2099`).
    pub fn known_id(&self, id: &str) -> Result<String, crate::UnknownName> {
        let ids = self.ids();
        if ids.iter().any(|known| known == id) {
            return Ok(id.to_owned());
        }
        let what = format!("no run `{id}` in {}", self.root.display());
        Err(crate::UnknownName::new(what, id, &ids, "the runs"))
    }

    /// The journal file of `host` in run `id`.
    pub fn journal_path(&self, id: &str, host: &str) -> PathBuf {
        self.run_dir(id).join(format!("{host}.jsonl"))
    }

    /// The state of run `id`, from how each host's journal ends.
    pub fn state(&self, id: &str) -> Result<RunState, JournalError> {
        let meta = self.meta(id)?;
        let mut state = RunState::Done;
        for host in meta
            .hosts
            .iter()
            .chain(std::iter::once(&CONTROLLER.to_owned()))
        {
            let path = self.journal_path(id, host);
            if !path.exists() {
                if host == CONTROLLER {
                    continue;
                }
                return Ok(RunState::Unfinished);
            }
            match HostJournal::load(&path, false)?.end.map(|end| end.status) {
                Some(HostStatus::Done) => {}
                Some(HostStatus::Failed) => state = RunState::Failed,
                Some(HostStatus::Cancelled) | None => return Ok(RunState::Unfinished),
            }
        }
        Ok(state)
    }

    /// The newest run that is not done, for `cairn resume` with no id, and a warning for each
    /// newer run whose `run.json` cannot be read (it is skipped, not resumed).
    pub fn latest_resumable(&self) -> (Option<String>, Vec<String>) {
        let mut warnings = Vec::new();
        for id in self.ids().into_iter().rev() {
            if let Err(error) = self.meta(&id) {
                warnings.push(format!("run {id} is skipped: {error}"));
                continue;
            }
            if !matches!(self.state(&id), Ok(RunState::Done)) {
                return (Some(id), warnings);
            }
        }
        (None, warnings)
    }
}

fn begun_by_default() -> bool {
    true
}

/// Records in the `run.json` of the run folder `dir` that its journals are begun (see
/// [`RunMeta::begun`]); a folder without `run.json` (a check, a test) is left alone.
pub(crate) fn mark_begun(dir: &Path) -> Result<(), JournalError> {
    let path = dir.join("run.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let mut meta: RunMeta = serde_json::from_str(&text).map_err(|e| JournalError::Header {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    if meta.begun {
        return Ok(());
    }
    meta.begun = true;
    let text = serde_json::to_string_pretty(&meta)
        .map_err(|e| JournalError::io(&path, "cannot encode", e.into()))?;
    private_files::write_atomic(&path, text.as_bytes())
        .map_err(|e| JournalError::io(&path, "cannot write", e))
}

/// The order of run ids: by time, then by the counter of runs started in the same second
/// (`-2` … `-10` by number, not as text).
fn run_id_order(id: &str) -> (&str, u64, &str) {
    match id.rsplit_once('-') {
        Some((base, n)) if base.contains('-') => match n.parse() {
            Ok(n) => (base, n, ""),
            Err(_) => (id, 1, id),
        },
        _ => (id, 1, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_second_sort_by_their_counter() {
        let mut ids = vec![
            "20261201-101500-10",
            "20261201-101501",
            "20261201-101500-2",
            "20261201-101500",
        ];
        ids.sort_by(|a, b| run_id_order(a).cmp(&run_id_order(b)));
        assert_eq!(
            ids,
            [
                "20261201-101500",
                "20261201-101500-2",
                "20261201-101500-10",
                "20261201-101501"
            ]
        );
    }
}
