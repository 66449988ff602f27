//! The runtime's [`SharedStore`] on PostgreSQL: what `--store postgres://...` hands a run.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cairn_runtime::journal::{JournalError, RecordSink};
use cairn_runtime::lease::LeaseStore;
use cairn_runtime::{RunMeta, SharedStore};

use crate::journal_sink::PgJournalSink;
use crate::{PgLeases, PgStore, RunRecord, Session, StoreError};

/// At most so many files of a runbook's folder are stored as the modules it may import.
const MAX_MODULES: usize = 500;

/// One controller session's view of the store, for one run.
#[derive(Debug, Clone)]
pub struct PgShared {
    store: Arc<Mutex<PgStore>>,
    session: Session,
    leases: PgLeases,
}

impl PgShared {
    /// The store on `store`'s connection, for `session`.
    pub fn new(store: PgStore, session: Session) -> Self {
        let store = Arc::new(Mutex::new(store));
        let leases = PgLeases::on(Arc::clone(&store), session.clone());
        Self {
            store,
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
    /// `.rhai` files of the runbook's folder (the modules it may import beside it), its
    /// inventory and params.
    fn whole_run(meta: &RunMeta) -> Result<RunRecord, JournalError> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|source| JournalError::Io {
                context: "cannot read, to store it with the run,".into(),
                path: path.display().to_string(),
                cause: source,
            })
        };
        let dir = meta.runbook.parent().unwrap_or(Path::new("."));
        let mut modules = Vec::new();
        collect_modules(dir, dir, &meta.runbook, 0, &mut modules);
        Ok(RunRecord {
            id: meta.run_id.clone(),
            runbook_path: meta.runbook.display().to_string(),
            runbook: read(&meta.runbook)?,
            modules,
            inventory: read(&meta.inventory)?,
            params: serde_json::to_value(&meta.params).unwrap_or_default(),
        })
    }
}

/// The `.rhai` files under `dir` (not in hidden folders such as `.cairn`), relative to `root`.
fn collect_modules(
    root: &Path,
    dir: &Path,
    runbook: &Path,
    depth: usize,
    into: &mut Vec<(String, Vec<u8>)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        if into.len() >= MAX_MODULES {
            return;
        }
        let hidden = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with('.'));
        if hidden || path == runbook {
            continue;
        }
        if path.is_dir() && depth < 4 {
            collect_modules(root, &path, runbook, depth + 1, into);
        } else if path.extension().is_some_and(|ext| ext == "rhai")
            && let (Ok(relative), Ok(bytes)) = (path.strip_prefix(root), std::fs::read(&path))
        {
            into.push((relative.display().to_string(), bytes));
        }
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
            store: Arc::clone(&self.store),
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

    fn put_meta(&self, run_id: &str, meta: &[u8]) -> Result<(), JournalError> {
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
        let record = Self::whole_run(&parsed)?;
        store
            .save_run(&self.session, &record)
            .map_err(store_failed)?;
        store
            .set_meta(&self.session, run_id, meta)
            .map_err(store_failed)?;
        Ok(())
    }
}
