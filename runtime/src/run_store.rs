//! Where runs live: `.cairn/runs/<run-id>/`, one journal per host and a `run.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::journal::{HostJournal, HostStatus, JournalError};

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
    /// `--param` values; secret ones are `<redacted>`.
    pub params: BTreeMap<String, String>,
    /// Seconds a reboot may take.
    pub reboot_timeout_secs: u64,
    /// The run's id.
    pub run_id: String,
    /// The runbook file.
    pub runbook: PathBuf,
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
pub struct RunStore {
    root: PathBuf,
}

impl RunStore {
    /// Runs under `root` (normally `.cairn`).
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_owned(),
        }
    }

    /// The state folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of run `id`.
    pub fn run_dir(&self, id: &str) -> PathBuf {
        self.root.join("runs").join(id)
    }

    /// A fresh run id: the UTC time, with a counter if two runs start in one second.
    pub fn new_run_id(&self) -> String {
        let secs = crate::journal::now_millis() / 1000;
        let (days, rest) = (secs / 86_400, secs % 86_400);
        let (year, month, day) = civil_from_days(i64::try_from(days).unwrap_or(0));
        let base = format!(
            "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
            rest / 3600,
            rest % 3600 / 60,
            rest % 60
        );
        let mut id = base.clone();
        let mut n = 1;
        while self.run_dir(&id).exists() {
            n += 1;
            id = format!("{base}-{n}");
        }
        id
    }

    /// Writes `run.json` for a new run, creating its folder.
    pub fn create(&self, meta: &RunMeta) -> Result<PathBuf, JournalError> {
        let dir = self.run_dir(&meta.run_id);
        std::fs::create_dir_all(&dir).map_err(|e| JournalError::io(&dir, "cannot create", e))?;
        let path = dir.join("run.json");
        let text = serde_json::to_string_pretty(meta).unwrap_or_default();
        std::fs::write(&path, text).map_err(|e| JournalError::io(&path, "cannot write", e))?;
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
        let mut ids: Vec<String> = std::fs::read_dir(self.root.join("runs"))
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.path().join("run.json").exists())
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .collect();
        ids.sort();
        ids
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
            .chain(std::iter::once(&"controller".to_owned()))
        {
            let path = self.journal_path(id, host);
            if !path.exists() {
                if host == "controller" {
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

    /// The newest run that is not done, for `cairn resume` with no id.
    pub fn latest_resumable(&self) -> Option<String> {
        self.ids()
            .into_iter()
            .rev()
            .find(|id| !matches!(self.state(id), Ok(RunState::Done)))
    }
}

/// Days since 1970-01-01 → (year, month, day), Howard Hinnant's algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }
}
