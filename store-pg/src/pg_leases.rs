//! The runtime's [`LeaseStore`] on the shared store: what the executor takes before it acts.

use std::sync::Arc;

use cairn_runtime::lease::{HeldLease, Holder, LeaseError, LeaseStore, Taken};

use crate::append_pool::AppendPool;
use crate::shared_connection::SharedConnection;
use crate::{HostTake, PgStore, Session, StoreError};

/// Host leases of one controller session in the shared store.
#[derive(Debug, Clone)]
pub struct PgLeases {
    store: Arc<SharedConnection>,
    /// The connections the held hosts' journals append through.
    pool: AppendPool,
    session: Session,
}

/// A host held at an epoch; dropped, it is given back (if the session still holds it).
#[derive(Debug)]
struct PgLease {
    store: Arc<SharedConnection>,
    pool: AppendPool,
    session: Session,
    host: String,
    epoch: i64,
}

impl HeldLease for PgLease {
    fn epoch(&self) -> Option<u64> {
        u64::try_from(self.epoch).ok()
    }

    fn journal_sink(
        &self,
        run_id: &str,
        host: &str,
    ) -> Option<Box<dyn cairn_runtime::journal::RecordSink>> {
        Some(Box::new(crate::journal_sink::PgJournalSink {
            pool: self.pool.clone(),
            session: self.session.clone(),
            run_id: run_id.to_owned(),
            journal: host.to_owned(),
            lease: Some((self.host.clone(), self.epoch)),
        }))
    }
}

impl Drop for PgLease {
    fn drop(&mut self) {
        // A release that fails, or that the store does not answer, leaves the lease to expire
        // with the session: never unsafe.
        let (session, host, epoch) = (self.session.clone(), self.host.clone(), self.epoch);
        let _ = self.store.call(
            self.session.answer_limit(),
            "give a host lease back",
            move |store| store.release_host(&session, &host, epoch),
        );
    }
}

impl PgLeases {
    /// Leases taken for `session` on `store`'s connection.
    pub fn new(store: PgStore, session: Session) -> Self {
        let pool = AppendPool::new(store.url());
        Self::on(SharedConnection::new(store), pool, session)
    }

    /// Leases taken for `session` on a connection shared with others, the held hosts'
    /// journals appending through `pool`.
    pub(crate) fn on(store: Arc<SharedConnection>, pool: AppendPool, session: Session) -> Self {
        Self {
            store,
            pool,
            session,
        }
    }

    /// The session the leases are taken for.
    pub fn session(&self) -> &Session {
        &self.session
    }
}

impl LeaseStore for PgLeases {
    fn try_take(&self, identity: &str, holder: &Holder) -> Result<Taken, LeaseError> {
        let mut taken = self.try_take_each(&[identity], holder)?;
        taken.pop().ok_or_else(|| {
            lease_error(
                self.pool.url(),
                identity,
                StoreError::SessionExpired {
                    session: self.session.id(),
                },
            )
        })
    }

    /// All of them in one transaction ([`PgStore::take_hosts`]).
    fn try_take_each(
        &self,
        identities: &[&str],
        holder: &Holder,
    ) -> Result<Vec<Taken>, LeaseError> {
        let session = self.session.clone();
        let hosts: Vec<String> = identities.iter().map(|&i| i.to_owned()).collect();
        let holder = holder.clone();
        let taken = self
            .store
            .call(
                self.session.answer_limit(),
                "take a host lease",
                move |store| {
                    let hosts: Vec<&str> = hosts.iter().map(String::as_str).collect();
                    store.take_hosts(&session, &hosts, &holder)
                },
            )
            .map_err(|error| lease_error(self.pool.url(), &identities.join(", "), error))?;
        Ok(identities
            .iter()
            .zip(taken)
            .map(|(identity, take)| self.taken(identity, take))
            .collect())
    }
}

impl PgLeases {
    /// The runtime's view of one host's take.
    fn taken(&self, identity: &str, take: HostTake) -> Taken {
        let held = |epoch| {
            Box::new(PgLease {
                store: Arc::clone(&self.store),
                pool: self.pool.clone(),
                session: self.session.clone(),
                host: identity.to_owned(),
                epoch,
            }) as Box<dyn HeldLease>
        };
        match take {
            HostTake::Free { epoch } => Taken::Free(held(epoch)),
            HostTake::TakenOver { epoch, from } => {
                Taken::TakenOver(held(epoch), from.unwrap_or_else(|| unnamed(None)))
            }
            HostTake::Held { by, session } => {
                Taken::Held(by.unwrap_or_else(|| unnamed(Some(session))))
            }
        }
    }
}

/// A holder that did not say who it was (a standby's claim): named by its session.
fn unnamed(session: Option<i64>) -> Holder {
    Holder {
        controller: session.map_or_else(|| "unknown".into(), |id| format!("session {id}")),
        pid: 0,
        run_id: "unknown".into(),
        since: 0,
        state_dir: String::new(),
    }
}

fn lease_error(url: &crate::StoreUrl, identity: &str, error: StoreError) -> LeaseError {
    LeaseError {
        action: "take",
        path: format!("{} (host {identity})", url.redacted()),
        source: std::io::Error::other(error.to_string()),
    }
}
