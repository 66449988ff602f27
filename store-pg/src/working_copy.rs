//! A stored run written out as the folder store holds it (`run.json`, one `<host>.jsonl` per
//! journal), so that `cairn runs`, `journal`, `report` and `resume` read it as they read a
//! folder run. Its runbook, modules and inventory are written beside it (`source/`), and its
//! `run.json` names them, so a resume on another machine needs no checkout.

use std::path::Path;

use cairn_runtime::{RunMeta, SEARCH_MODULES};

use crate::{PgStore, StoreError};

impl PgStore {
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
