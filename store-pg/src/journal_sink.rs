//! The runtime's [`RecordSink`] on the shared store: each journal record of a run appended in
//! its own transaction, fenced by the host's lease (or, for the controller's journal, by the
//! session alone), before the folder journal writes it.

use cairn_runtime::journal::{JournalError, RecordSink};

use crate::append_pool::AppendPool;
use crate::{LeasedRecord, Session, StoreError};

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
        let (run_id, journal) = (self.run_id.clone(), self.journal.clone());
        self.pool
            .within(
                self.session.answer_limit(),
                "count a journal's records",
                move |store| store.record_count(&run_id, &journal),
            )
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
        let limit = self.session.answer_limit();
        let appended = match &self.lease {
            Some((host, epoch)) => self.pool.append(
                limit,
                LeasedRecord {
                    session: self.session.id(),
                    run_id: self.run_id.clone(),
                    journal: self.journal.clone(),
                    host: host.clone(),
                    epoch: *epoch,
                    record: line.to_vec(),
                },
            ),
            None => {
                let session = self.session.clone();
                let (run_id, journal) = (self.run_id.clone(), self.journal.clone());
                let line = line.to_vec();
                self.pool
                    .within(limit, "append to a journal", move |store| {
                        store.append_in_session(&session, &run_id, &journal, &line)
                    })
            }
        };
        appended.map_err(|error| self.refused(error))?;
        // An append that took the store past this controller's deadline begins nothing either:
        // the intent is journaled, and a resume finds from the host's fence that it never ran.
        if begins_action && !self.session.may_act() {
            return Err(JournalError::Demoted {
                host: self.journal.clone(),
            });
        }
        Ok(())
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
