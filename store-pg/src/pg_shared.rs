//! The runtime's [`SharedStore`] on PostgreSQL: what `--store postgres://...` hands a run.

use std::path::Path;
use std::sync::Arc;

use cairn_runtime::journal::{JournalError, RecordSink};
use cairn_runtime::lease::LeaseStore;
use cairn_runtime::{RunMeta, RunModules, SharedStore};

use crate::append_pool::AppendPool;
use crate::journal_sink::PgJournalSink;
use crate::shared_connection::SharedConnection;
use crate::{PgLeases, PgStore, RunRecord, Session, StoreError};

/// One controller session's view of the store, for one run.
#[derive(Debug, Clone)]
pub struct PgShared {
    store: Arc<SharedConnection>,
    /// The connections the run's journals append through.
    pool: AppendPool,
    session: Session,
    leases: PgLeases,
}

impl PgShared {
    /// The store on `store`'s connection, for `session`.
    pub fn new(store: PgStore, session: Session) -> Self {
        let pool = AppendPool::new(store.url());
        let store = SharedConnection::new(store);
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

    /// Runs `f` on the connection, waiting for the store's answer only until the session
    /// would expire ([`SharedConnection::call`]): for the calls a command makes before it acts
    /// (taking a run over, claiming a share or an orphaned run), which would otherwise wait for
    /// ever on a store gone silent.
    pub fn call<T: Send + 'static>(
        &self,
        action: &'static str,
        f: impl FnOnce(&mut PgStore, &Session) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let session = self.session.clone();
        self.store
            .call(self.session.answer_limit(), action, move |store| {
                f(store, &session)
            })
    }

    /// Ends the session at once, giving back whatever it still holds. A run stopped by a lost
    /// connection (a restarted server) closes on a new one, tried again while the server is
    /// still starting, so its hosts are given back now, not at its TTL; a store that does not
    /// answer is not waited for. A close that fails still leaves the session to expire with
    /// its TTL: never unsafe.
    pub fn close_session(&self) -> Result<(), JournalError> {
        let limit = self.session.answer_limit();
        let started = std::time::Instant::now();
        self.bounded("close the controller session", move |store, session| {
            loop {
                let closed = match store.close_session(session) {
                    Err(error) if error.is_lost() => store
                        .reconnect()
                        .and_then(|()| store.close_session(session)),
                    other => other,
                };
                match closed {
                    Err(error) if error.is_lost() && started.elapsed() < limit / 2 => {
                        std::thread::sleep(std::time::Duration::from_millis(200));
                    }
                    other => return other,
                }
            }
        })
    }

    /// [`PgShared::call`], failing as a journal does.
    pub(crate) fn bounded<T: Send + 'static>(
        &self,
        action: &'static str,
        f: impl FnOnce(&mut PgStore, &Session) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, JournalError> {
        self.call(action, f).map_err(store_failed)
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

impl PgShared {
    /// Stores run `run_id` whole, from its `run.json` bytes `meta`, with the `modules` it
    /// imports, and keeps `meta` with it.
    fn store_whole(
        &self,
        run_id: &str,
        meta: &[u8],
        modules: &RunModules,
    ) -> Result<(), JournalError> {
        let parsed: RunMeta =
            serde_json::from_slice(meta).map_err(|error| JournalError::Header {
                path: format!("run.json of {run_id}"),
                reason: error.to_string(),
            })?;
        let record = Self::whole_run(&parsed, modules)?;
        let (id, bytes) = (run_id.to_owned(), meta.to_vec());
        self.bounded("store a run", move |store, session| {
            store.save_run(session, &record)?;
            store.set_meta(session, &id, &bytes)
        })?;
        Ok(())
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

    fn open_fleet(
        &self,
        first: &str,
        first_hosts: usize,
        shares: &[(String, Vec<u8>, usize)],
        modules: &RunModules,
    ) -> Result<(), JournalError> {
        for (run_id, meta, _) in shares {
            let id = run_id.clone();
            if !self.bounded("reserve a share's run id", move |store, session| {
                store.reserve_run_id(session, &id)
            })? {
                return Err(JournalError::Store {
                    reason: format!("run id {run_id} of a share is another run's already"),
                });
            }
            self.store_whole(run_id, meta, modules)?;
        }
        let (first, others): (String, Vec<(String, usize)>) = (
            first.to_owned(),
            shares
                .iter()
                .map(|(id, _, hosts)| (id.clone(), *hosts))
                .collect(),
        );
        self.bounded("record a shared run's shares", move |store, session| {
            store.open_fleet(session, &first, first_hosts, &others)
        })
    }

    fn fleet(
        &self,
        share: &cairn_runtime::FleetShare,
    ) -> Option<Arc<dyn cairn_runtime::FleetSync>> {
        Some(Arc::new(crate::pg_fleet::PgFleet::new(self.clone(), share)))
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
        let run_id = run_id.to_owned();
        self.bounded("reserve a run id", move |store, session| {
            store.reserve_run_id(session, &run_id)
        })
    }

    fn put_meta(
        &self,
        run_id: &str,
        meta: &[u8],
        modules: &RunModules,
    ) -> Result<(), JournalError> {
        let (id, bytes) = (run_id.to_owned(), meta.to_vec());
        if self.bounded("write a run's run.json", move |store, session| {
            store.set_meta(session, &id, &bytes)
        })? {
            return Ok(());
        }
        // The run's first: it is stored whole, so that another controller needs no checkout.
        self.store_whole(run_id, meta, modules)
    }
}
