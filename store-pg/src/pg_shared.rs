//! The runtime's [`SharedStore`] on PostgreSQL: what `--store postgres://...` hands a run.

use std::path::Path;
use std::sync::{Arc, Mutex};

use cairn_runtime::journal::{JournalError, RecordSink};
use cairn_runtime::lease::LeaseStore;
use cairn_runtime::{RunMeta, RunModules, SharedStore};

use crate::append_pool::AppendPool;
use crate::journal_sink::PgJournalSink;
use crate::{PgLeases, PgStore, RunRecord, Session, StoreError};

/// One controller session's view of the store, for one run.
#[derive(Debug, Clone)]
pub struct PgShared {
    store: Arc<Mutex<PgStore>>,
    /// The connections the run's journals append through.
    pool: AppendPool,
    session: Session,
    leases: PgLeases,
}

impl PgShared {
    /// The store on `store`'s connection, for `session`.
    pub fn new(store: PgStore, session: Session) -> Self {
        let pool = AppendPool::new(store.url());
        let store = Arc::new(Mutex::new(store));
        let leases = PgLeases::on(Arc::clone(&store), pool.clone(), session.clone());
        Self {
            store,
            pool,
            session,
            leases,
        }
    }

    /// The controller session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Runs `f` on the connection.
    pub fn with<T>(&self, f: impl FnOnce(&mut PgStore) -> T) -> T {
        f(&mut crate::pg_leases::lock(&self.store))
    }

    /// The run as the store keeps it, whole, from its `run.json` (`meta`): its runbook, the
    /// modules it imports (`modules`), its inventory and params.
    fn whole_run(meta: &RunMeta, modules: &RunModules) -> Result<RunRecord, JournalError> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|source| JournalError::Io {
                context: "cannot read, to store it with the run,".into(),
                path: path.display().to_string(),
                cause: source,
            })
        };
        let mut stored = Vec::new();
        for (name, file) in &modules.modules {
            stored.push((name.clone(), read(file)?));
        }
        stored.sort();
        Ok(RunRecord {
            id: meta.run_id.clone(),
            runbook_path: meta.runbook.display().to_string(),
            runbook: read(&meta.runbook)?,
            runbook_name: Some(modules.runbook.clone()),
            modules: stored,
            inventory: read(&meta.inventory)?,
            params: serde_json::to_value(&meta.params).unwrap_or_default(),
        })
    }
}

fn store_failed(error: StoreError) -> JournalError {
    JournalError::Store {
        reason: error.to_string(),
    }
}

impl SharedStore for PgShared {
    fn leases(&self) -> &dyn LeaseStore {
        &self.leases
    }

    fn unfenced_sink(&self, run_id: &str, host: &str) -> Result<Box<dyn RecordSink>, JournalError> {
        Ok(Box::new(PgJournalSink {
            pool: self.pool.clone(),
            session: self.session.clone(),
            run_id: run_id.to_owned(),
            journal: host.to_owned(),
            lease: None,
        }))
    }

    fn reserve_run_id(&self, run_id: &str) -> Result<bool, JournalError> {
        crate::pg_leases::lock(&self.store)
            .reserve_run_id(&self.session, run_id)
            .map_err(store_failed)
    }

    fn put_meta(
        &self,
        run_id: &str,
        meta: &[u8],
        modules: &RunModules,
    ) -> Result<(), JournalError> {
        let mut store = crate::pg_leases::lock(&self.store);
        if store
            .set_meta(&self.session, run_id, meta)
            .map_err(store_failed)?
        {
            return Ok(());
        }
        // The run's first: it is stored whole, so that another controller needs no checkout.
        let parsed: RunMeta =
            serde_json::from_slice(meta).map_err(|error| JournalError::Header {
                path: format!("run.json of {run_id}"),
                reason: error.to_string(),
            })?;
        let record = Self::whole_run(&parsed, modules)?;
        store
            .save_run(&self.session, &record)
            .map_err(store_failed)?;
        store
            .set_meta(&self.session, run_id, meta)
            .map_err(store_failed)?;
        Ok(())
    }
}
