//! A run stored whole, so that any controller can resume it without a checkout.

use crate::{PgStore, Session, StoreError};

/// What a controller needs to resume a run: its runbook, every module it imports, its
/// inventory and its parameters, as they were when it started.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// The run's id.
    pub id: String,
    /// The runbook's path as the operator gave it (for messages; the source is below).
    pub runbook_path: String,
    /// The runbook's bytes.
    pub runbook: Vec<u8>,
    /// The runbook's path under its import root (its pack, else its folder), where a working
    /// copy puts it so that its imports resolve as they did; `None` in runs stored before
    /// schema 5, whose modules are relative to the runbook's folder.
    pub runbook_name: Option<String>,
    /// The modules it imports: (stored name, bytes), in name order. A name is the module's
    /// path under the import root, or `.search/N/...` under the `N`th `--lib` folder
    /// (`cairn_runtime::RunModules`).
    pub modules: Vec<(String, Vec<u8>)>,
    /// The inventory file's bytes.
    pub inventory: Vec<u8>,
    /// The parameters, as the folder store's `run.json` holds them.
    pub params: serde_json::Value,
}

impl PgStore {
    /// Stores `run` for `session`, in one transaction (a run is there whole or not at all).
    pub fn save_run(&mut self, session: &Session, run: &RunRecord) -> Result<(), StoreError> {
        let action = "store the run";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        transaction
            .execute(
                "INSERT INTO cairn_run \
                 (id, session, runbook_path, runbook, inventory, params, runbook_name) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[
                    &run.id,
                    &session.id(),
                    &run.runbook_path,
                    &run.runbook,
                    &run.inventory,
                    &run.params,
                    &run.runbook_name,
                ],
            )
            .map_err(fail)?;
        for (path, source) in &run.modules {
            transaction
                .execute(
                    "INSERT INTO cairn_run_module (run_id, path, source) VALUES ($1, $2, $3)",
                    &[&run.id, path, source],
                )
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }

    /// The run `id`, if the store has it.
    pub fn load_run(&mut self, id: &str) -> Result<Option<RunRecord>, StoreError> {
        let Some(row) = self
            .client
            .query_opt(
                "SELECT runbook_path, runbook, inventory, params, runbook_name \
                 FROM cairn_run WHERE id = $1",
                &[&id],
            )
            .map_err(|error| self.fail("read the run", error))?
        else {
            return Ok(None);
        };
        let modules = self
            .client
            .query(
                "SELECT path, source FROM cairn_run_module WHERE run_id = $1 ORDER BY path",
                &[&id],
            )
            .map_err(|error| self.fail("read the run's modules", error))?
            .into_iter()
            .map(|module| (module.get(0), module.get(1)))
            .collect();
        Ok(Some(RunRecord {
            id: id.to_owned(),
            runbook_path: row.get(0),
            runbook: row.get(1),
            runbook_name: row.get(4),
            modules,
            inventory: row.get(2),
            params: row.get(3),
        }))
    }
}
