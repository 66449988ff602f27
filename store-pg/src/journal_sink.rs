//! The runtime's [`RecordSink`] on the shared store: each journal record of a run appended in
//! its own transaction, fenced by the host's lease (or, for the controller's journal, by the
//! session alone), before the folder journal writes it.

use cairn_runtime::journal::{JournalError, RecordSink};

use crate::append_pool::AppendPool;
use crate::{Session, StoreError};

/// One journal of one run, appended to the store.
#[derive(Debug)]
pub(crate) struct PgJournalSink {
    pub(crate) pool: AppendPool,
    pub(crate) session: Session,
    pub(crate) run_id: String,
    /// The journal's name: the host's name in the run's inventory (or `controller`).
    pub(crate) journal: String,
    /// The lease that fences it: (host identity, epoch); `None`: the session alone.
    pub(crate) lease: Option<(String, i64)>,
}

impl RecordSink for PgJournalSink {
    fn stored(&mut self) -> Result<usize, JournalError> {
        self.pool
            .with(|store| store.record_count(&self.run_id, &self.journal))
            .map_err(|error| self.refused(error))
    }

    fn append(&mut self, line: &[u8], begins_action: bool) -> Result<(), JournalError> {
        // Self-demotion: past its deadline this controller begins nothing, since the store
        // may already have given its hosts to another (docs/fleet.md).
        if begins_action && !self.session.may_act() {
            return Err(JournalError::Demoted {
                host: self.journal.clone(),
            });
        }
        let appended = self.pool.with(|store| match &self.lease {
            Some((host, epoch)) => store.append_leased(
                &self.session,
                &self.run_id,
                &self.journal,
                host,
                *epoch,
                line,
            ),
            None => store.append_in_session(&self.session, &self.run_id, &self.journal, line),
        });
        appended.map(|_| ()).map_err(|error| self.refused(error))
    }
}

impl PgJournalSink {
    fn refused(&self, error: StoreError) -> JournalError {
        match error {
            StoreError::Fenced { .. } | StoreError::SessionExpired { .. } => JournalError::Fenced {
                host: self.journal.clone(),
                reason: error.to_string(),
            },
            other => JournalError::Store {
                reason: other.to_string(),
            },
        }
    }
}
