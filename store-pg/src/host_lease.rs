//! Taking and giving back a host's lease; each take raises the host's epoch.

use cairn_runtime::lease::Holder;

use crate::{PgStore, Session, StoreError};

/// Where a host's lease stands after an attempt to take it.
#[derive(Debug, Clone, PartialEq)]
pub enum HostTake {
    /// It was free (never taken, or given back): this session holds it at `epoch`.
    Free {
        /// The new epoch.
        epoch: i64,
    },
    /// Its holder's session had expired by the database's clock: this session holds it now at
    /// `epoch`, and says so.
    TakenOver {
        /// The new epoch.
        epoch: i64,
        /// Who held it.
        from: Option<Holder>,
    },
    /// A live session holds it.
    Held {
        /// Who holds it, when the holder said.
        by: Option<Holder>,
        /// That holder's session.
        session: i64,
    },
}

impl PgStore {
    /// Tries to take `host` for `session` on behalf of `holder` (its run), without waiting
    /// longer than another take of the same host takes to commit.
    ///
    /// The row is locked `FOR UPDATE` for the decision, so of two sessions racing for one host
    /// exactly one wins; the other then sees a live holder. Taking it again for the same run of
    /// the same session keeps its epoch.
    pub fn take_host(
        &mut self,
        session: &Session,
        host: &str,
        holder: &Holder,
    ) -> Result<HostTake, StoreError> {
        let mut taken = self.take_hosts(session, &[host], holder)?;
        taken.pop().ok_or_else(|| StoreError::SessionExpired {
            session: session.id(),
        })
    }

    /// [`Self::take_host`] for each of `hosts`, in their order, in one transaction: a run
    /// takes all its hosts at one commit instead of one each (64 commits, one after another,
    /// were most of what a 64-host run on the store cost more than on the folder store).
    pub fn take_hosts(
        &mut self,
        session: &Session,
        hosts: &[&str],
        holder: &Holder,
    ) -> Result<Vec<HostTake>, StoreError> {
        let action = "take a host lease";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let holder_json = serde_json::to_value(holder).unwrap_or(serde_json::Value::Null);
        // Prepared once per connection: parsed per host, they were half of a take's round trips.
        let statements = TakeStatements {
            ensure: self.prepared(ENSURE_LEASE).map_err(fail)?,
            read: self.prepared(READ_LEASE).map_err(fail)?,
            take: self.prepared(TAKE_LEASE).map_err(fail)?,
        };
        let mut transaction = self.client.transaction().map_err(fail)?;
        let mut taken = Vec::with_capacity(hosts.len());
        for host in hosts {
            let take = take_in(
                &mut transaction,
                &statements,
                session,
                host,
                holder,
                &holder_json,
            )
            .map_err(fail)?;
            let Some(take) = take else {
                return Err(StoreError::SessionExpired {
                    session: session.id(),
                });
            };
            taken.push(take);
        }
        transaction.commit().map_err(fail)?;
        Ok(taken)
    }

    /// Gives `host` back if `session` still holds it at `epoch`; its epoch stays, so the next
    /// take raises it. Returns whether it was held.
    pub fn release_host(
        &mut self,
        session: &Session,
        host: &str,
        epoch: i64,
    ) -> Result<bool, StoreError> {
        let released = self
            .prepared(RELEASE_LEASE)
            .and_then(|statement| {
                self.client
                    .execute(&statement, &[&host, &session.id(), &epoch])
            })
            .map_err(|error| self.fail("give a host lease back", error))?;
        Ok(released == 1)
    }

    /// The host's lease as the store has it: (holding session, epoch); `None` for a host
    /// never taken.
    pub fn lease_of(&mut self, host: &str) -> Result<Option<(Option<i64>, i64)>, StoreError> {
        let row = self
            .prepared("SELECT session, epoch FROM cairn_lease WHERE host = $1")
            .and_then(|statement| self.client.query_opt(&statement, &[&host]))
            .map_err(|error| self.fail("read a host lease", error))?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }
}

/// A host's lease row, made when it was never taken.
const ENSURE_LEASE: &str =
    "INSERT INTO cairn_lease (host) VALUES ($1) ON CONFLICT (host) DO NOTHING";

/// A host's lease and whether its holder's session lives, locked for the take's decision.
const READ_LEASE: &str = "\
SELECT l.session, l.epoch, l.run_id, l.holder, coalesce(s.expires_at > now(), false)
FROM cairn_lease l LEFT JOIN cairn_session s ON s.id = l.session
WHERE l.host = $1 FOR UPDATE OF l";

/// The take: the epoch raised, if the taking session lives.
const TAKE_LEASE: &str = "\
UPDATE cairn_lease SET session = $2, epoch = GREATEST(epoch + 1, cairn_epoch_now()), run_id = $3,
    holder = $4, since = now()
WHERE host = $1 AND EXISTS (SELECT 1 FROM cairn_session WHERE id = $2 AND expires_at > now())
RETURNING epoch";

/// The lease given back, if this session holds it at that epoch; the epoch stays.
const RELEASE_LEASE: &str = "\
UPDATE cairn_lease SET session = NULL, run_id = NULL, holder = NULL
WHERE host = $1 AND session = $2 AND epoch = $3";

/// A take's statements, prepared.
struct TakeStatements {
    ensure: postgres::Statement,
    read: postgres::Statement,
    take: postgres::Statement,
}

/// One host's take inside `transaction`; `None` when the session is no longer alive (an
/// expired session must not come back).
fn take_in(
    transaction: &mut postgres::Transaction<'_>,
    statements: &TakeStatements,
    session: &Session,
    host: &str,
    holder: &Holder,
    holder_json: &serde_json::Value,
) -> Result<Option<HostTake>, postgres::Error> {
    transaction.execute(&statements.ensure, &[&host])?;
    let row = transaction.query_one(&statements.read, &[&host])?;
    let owner: Option<i64> = row.get(0);
    let epoch: i64 = row.get(1);
    let run_id: Option<String> = row.get(2);
    let previous: Option<Holder> = row
        .get::<_, Option<serde_json::Value>>(3)
        .and_then(|value| serde_json::from_value(value).ok());
    let owner_alive: bool = row.get(4);
    match owner {
        Some(owner) if owner == session.id() && run_id.as_deref() == Some(&holder.run_id) => {
            return Ok(Some(HostTake::Free { epoch }));
        }
        Some(owner) if owner_alive => {
            return Ok(Some(HostTake::Held {
                by: previous,
                session: owner,
            }));
        }
        _ => {}
    }
    let taken = transaction.query_opt(
        &statements.take,
        &[&host, &session.id(), &holder.run_id, holder_json],
    )?;
    Ok(taken.map(|row| {
        let epoch = row.get(0);
        match owner {
            None => HostTake::Free { epoch },
            Some(_) => HostTake::TakenOver {
                epoch,
                from: previous,
            },
        }
    }))
}
