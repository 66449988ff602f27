//! A run read back from its folder: `run.json` and every host's journal, nothing else.

use cairn_runtime::journal::HostJournal;
use cairn_runtime::{CONTROLLER, RunFolders, RunMeta};

use crate::host_model::HostModel;
use crate::report_error::ReportError;

/// What the report is made from.
#[derive(Debug, Clone)]
pub struct RunModel {
    /// What was asked (`run.json`).
    pub meta: RunMeta,
    /// The hosts in the order of `run.json`, then `controller` when the run has one.
    pub hosts: Vec<HostModel>,
    /// What the reader noticed: torn last lines, journals that are missing.
    pub notes: Vec<String>,
    /// SHA-256 of the runbook text the run started with, from the first journal's header.
    pub runbook_hash: Option<String>,
}

impl RunModel {
    /// Reads run `id` (the newest run when `None`) from `store`.
    pub fn load(store: &RunFolders, id: Option<&str>) -> Result<Self, ReportError> {
        let ids = store.ids();
        let state = store.root().display().to_string();
        let id = match id {
            Some(id) if ids.iter().any(|known| known == id) => id.to_owned(),
            Some(id) => {
                let help =
                    match cairn_runtime::inventory::closest(id, ids.iter().map(String::as_str)) {
                        Some(near) => format!("did you mean `{near}`? `cairn runs` lists the runs"),
                        None => "`cairn runs` lists the runs".to_owned(),
                    };
                return Err(ReportError::UnknownRun {
                    id: id.to_owned(),
                    state,
                    help,
                });
            }
            None => ids.last().cloned().ok_or(ReportError::NoRuns { state })?,
        };
        let meta = store.meta(&id)?;
        let mut notes = Vec::new();
        let mut hosts = Vec::new();
        let mut runbook_hash = None;
        let controller = CONTROLLER.to_owned();
        let names = meta
            .hosts
            .iter()
            .chain(meta.controller.then_some(&controller));
        for name in names {
            let path = store.journal_path(&id, name);
            if !path.exists() {
                notes.push(format!("{name}: no journal ({})", path.display()));
                continue;
            }
            let journal = HostJournal::load(&path, false)?;
            if let Some(line) = journal.torn_line {
                notes.push(format!(
                    "{name}: line {line} of {} is torn (a crash during a write) and was left out",
                    path.display()
                ));
            }
            if runbook_hash.is_none() {
                runbook_hash = journal.header.as_ref().map(|h| h.runbook_hash.clone());
            }
            hosts.push(HostModel::from_journal(name, &journal));
        }
        Ok(Self {
            meta,
            hosts,
            notes,
            runbook_hash,
        })
    }

    /// The host named `name`.
    pub fn host(&self, name: &str) -> Option<&HostModel> {
        self.hosts.iter().find(|host| host.name == name)
    }

    /// The hosts of the run, the controller left out (it is shown apart, and the command
    /// line does not count it either).
    pub fn fleet(&self) -> impl Iterator<Item = &HostModel> {
        self.hosts.iter().filter(|host| host.name != CONTROLLER)
    }

    /// The controller's part, when the run has `on controller` stages.
    pub fn controller(&self) -> Option<&HostModel> {
        self.host(CONTROLLER)
    }

    /// The first and last record of any host.
    pub fn span(&self) -> Option<(u64, u64)> {
        self.hosts
            .iter()
            .filter_map(|host| host.span)
            .reduce(|(a0, a1), (b0, b1)| (a0.min(b0), a1.max(b1)))
    }
}
