//! Runs whose controller died holding hosts, as a standby finds and claims them
//! (`cairn standby --store URL`, docs/fleet.md).
//!
//! A run is orphaned when its driver's session has expired by the database's clock while that
//! session still holds a host lease for the run. A controller that ends its run (done, failed
//! or stopped by a signal) closes its session, which gives every lease back, so its run is
//! never orphaned: a standby takes over only what a dead controller left half done, and never
//! a run an operator stopped on purpose. A host another run has taken since is no longer held
//! for the dead one, so an old run whose hosts have moved on is not taken either.
//!
//! The unit a standby claims is a whole run, locked `FOR UPDATE SKIP LOCKED`: two standbys
//! polling at once take different runs instead of queueing on one. The run's hosts are then
//! taken over one by one by the resume (each take raising the host's epoch, journaled).

use crate::{PgStore, RunDriver, Session, StoreError};

/// Runs orphaned now, oldest first, each with the dead driver and how many hosts it still
/// holds.
const ORPHANED: &str = "\
SELECT r.id, s.id, s.controller, s.pid, \
       to_char(s.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), \
       (SELECT count(*) FROM cairn_lease l WHERE l.session = r.session AND l.run_id = r.id) \
FROM cairn_run r JOIN cairn_session s ON s.id = r.session \
WHERE s.expires_at <= now() \
  AND EXISTS (SELECT 1 FROM cairn_lease l WHERE l.session = r.session AND l.run_id = r.id) \
ORDER BY r.created_at, r.id";

/// A run whose controller died holding its hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrphanedRun {
    /// The run.
    pub id: String,
    /// The controller that drove it, whose session expired.
    pub driver: RunDriver,
    /// How many of its hosts that session still holds.
    pub hosts_held: i64,
}

fn orphan_of(row: &postgres::Row) -> OrphanedRun {
    OrphanedRun {
        id: row.get(0),
        driver: RunDriver {
            session: row.get(1),
            controller: row.get(2),
            pid: row.get(3),
            since: row.get(4),
            alive: false,
        },
        hosts_held: row.get(5),
    }
}

impl PgStore {
    /// The connection itself, for a caller that claims inside a longer transaction of its own
    /// (and for the tests that hold a run locked to show two claimers taking different runs).
    pub fn client(&mut self) -> &mut postgres::Client {
        &mut self.client
    }

    /// The runs orphaned now (read only: a standby's poll).
    pub fn orphaned_runs(&mut self) -> Result<Vec<OrphanedRun>, StoreError> {
        let rows = self
            .client
            .query(ORPHANED, &[])
            .map_err(|error| self.fail("look for runs whose controller died", error))?;
        Ok(rows.iter().map(orphan_of).collect())
    }

    /// Makes `session` (alive by the database's clock) the driver of the oldest orphaned run
    /// no other claimer has locked, and returns it; `None` when there is none left.
    pub fn claim_orphaned_run(
        &mut self,
        session: &Session,
    ) -> Result<Option<OrphanedRun>, StoreError> {
        let action = "claim a run whose controller died";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        let locked = format!("{ORPHANED} LIMIT 1 FOR UPDATE OF r SKIP LOCKED");
        let alive = transaction
            .query_opt(
                "SELECT 1 FROM cairn_session WHERE id = $1 AND expires_at > now()",
                &[&session.id()],
            )
            .map_err(fail)?;
        if alive.is_none() {
            return Err(StoreError::SessionExpired {
                session: session.id(),
            });
        }
        let Some(row) = transaction.query_opt(&locked, &[]).map_err(fail)? else {
            transaction.commit().map_err(fail)?;
            return Ok(None);
        };
        let orphan = orphan_of(&row);
        transaction
            .execute(
                "UPDATE cairn_run SET session = $2 WHERE id = $1",
                &[&orphan.id, &session.id()],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)?;
        Ok(Some(orphan))
    }
}
