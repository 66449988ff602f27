//! A stored run written out as the folder store holds it (`run.json`, one `<host>.jsonl` per
//! journal), so that `cairn runs`, `journal`, `report` and `resume` read it as they read a
//! folder run. Its runbook, modules and inventory are written beside it (`source/`), and its
//! `run.json` names them, so a resume on another machine needs no checkout.

use std::path::{Path, PathBuf};

use cairn_runtime::{Driver, RunFolders, RunMeta, SEARCH_MODULES};

use crate::{PgShared, PgStore, StoreError};

impl PgStore {
    /// Writes the working copy of each stored run, or only of `only`, into `runs`: for the
    /// commands that read runs without a session (`runs`, `journal`, `report`). Each read
    /// waits for the store's answer at most the connect limit ([`PgStore::call`]).
    pub fn copy_runs(self, runs: &RunFolders, only: Option<&str>) -> Result<Self, StoreError> {
        let (mut store, ids) = match only {
            Some(id) => (self, vec![id.to_owned()]),
            None => self.call("list the stored runs", |store| store.run_ids())?,
        };
        for (id, dir) in not_driven_here(runs, ids) {
            (store, _) = store.call("copy a stored run", move |store| {
                store.write_working_copy(&id, &dir)
            })?;
        }
        Ok(store)
    }

    /// Writes run `id` into the folder `dir`; false when the store has no run `id` (or has it
    /// but its controller has not yet written its `run.json`).
    pub fn write_working_copy(&mut self, id: &str, dir: &Path) -> Result<bool, StoreError> {
        let (Some(meta), Some(run)) = (self.meta(id)?, self.load_run(id)?) else {
            return Ok(false);
        };
        let mut meta: RunMeta =
            serde_json::from_slice(&meta).map_err(|error| StoreError::BadMeta {
                run_id: id.to_owned(),
                reason: error.to_string(),
            })?;
        let source = dir.join("source");
        let runbook_name = meta
            .runbook
            .file_name()
            .map_or_else(|| "runbook.rhai".into(), ToOwned::to_owned);
        let inventory_name = meta
            .inventory
            .file_name()
            .map_or_else(|| "inventory.toml".into(), ToOwned::to_owned);
        // Since schema 5 the runbook is at its path under its import root, and `source/`
        // stands for that root; before, modules were relative to the runbook's folder.
        let runbook_path = match run.runbook_name.as_deref().filter(|name| inside(name)) {
            Some(name) => {
                meta.import_root = Some(source.clone());
                source.join(name)
            }
            None => source.join(&runbook_name),
        };
        write(&runbook_path, &run.runbook)?;
        let mut searched = 0;
        for (name, bytes) in &run.modules {
            // A stored name is relative and inside its root; anything else is not written
            // (it cannot have been stored by this cairn).
            if !inside(name) {
                continue;
            }
            if let Some(n) = search_folder(name) {
                searched = searched.max(n + 1);
            }
            write(&source.join(name), bytes)?;
        }
        meta.import_dirs = (0..searched)
            .map(|n| source.join(SEARCH_MODULES).join(n.to_string()))
            .collect();
        let inventory = dir.join("inventory").join(&inventory_name);
        write(&inventory, &run.inventory)?;
        meta.runbook = runbook_path;
        meta.inventory = inventory;
        for journal in self.journals(id)? {
            let text: Vec<u8> = self.records(id, &journal)?.concat();
            write(&dir.join(format!("{journal}.jsonl")), &text)?;
        }
        let text = serde_json::to_string_pretty(&meta).map_err(|error| StoreError::BadMeta {
            run_id: id.to_owned(),
            reason: error.to_string(),
        })?;
        write(&dir.join("run.json"), text.as_bytes())?;
        Ok(true)
    }
}

impl PgShared {
    /// [`PgStore::copy_runs`] on this session's connection, for a resume choosing and taking
    /// its run: each read waits for the store's answer only so long ([`PgShared::call`]).
    pub fn copy_runs(&self, runs: &RunFolders, only: Option<&str>) -> Result<(), StoreError> {
        let ids = match only {
            Some(id) => vec![id.to_owned()],
            None => self.call("list the stored runs", |store, _| store.run_ids())?,
        };
        for (id, dir) in not_driven_here(runs, ids) {
            self.call("copy a stored run", move |store, _| {
                store.write_working_copy(&id, &dir)
            })?;
        }
        Ok(())
    }
}

/// Each of `ids` with its working copy's folder, but for a run a process of this machine
/// drives now: its copy is the one being written.
fn not_driven_here(runs: &RunFolders, ids: Vec<String>) -> Vec<(String, PathBuf)> {
    ids.into_iter()
        .map(|id| {
            let dir = runs.run_dir(&id);
            (id, dir)
        })
        .filter(|(_, dir)| Driver::of(dir).is_none())
        .collect()
}

/// Whether a stored name is a relative path that stays inside its folder.
fn inside(name: &str) -> bool {
    let path = Path::new(name);
    !path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// `N` of a module stored from the `N`th search folder (`.search/N/...`).
fn search_folder(name: &str) -> Option<usize> {
    let rest = name.strip_prefix(SEARCH_MODULES)?.strip_prefix('/')?;
    rest.split('/').next()?.parse().ok()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let fail = |source| StoreError::WorkingCopy {
        path: path.display().to_string(),
        source,
    };
    if let Some(parent) = path.parent() {
        cairn_runtime::private_files::create_dir_all(parent).map_err(fail)?;
    }
    cairn_runtime::private_files::write_atomic(path, bytes).map_err(fail)
}
