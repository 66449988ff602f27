//! A standby claiming the hosts of expired sessions, in batches that two standbys split.

use postgres::GenericClient;

use crate::{PgStore, Session, StoreError};

/// A host claimed from an expired session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The host.
    pub host: String,
    /// Its new epoch (above the dead holder's, and at least the take time in milliseconds).
    pub epoch: i64,
    /// The run it was held for.
    pub run_id: Option<String>,
    /// The expired session that held it.
    pub from_session: i64,
}

/// Locks up to `batch` leases of expired sessions with `FOR UPDATE SKIP LOCKED`, so that a
/// second standby claiming at the same time takes other hosts instead of waiting for these,
/// and raises each one's epoch for `session` (still alive by the database's clock).
///
/// The rows stay locked until the caller's transaction ends: [`PgStore::claim_expired`] runs
/// this in a transaction of its own.
pub fn claim_expired(
    client: &mut impl GenericClient,
    session: &Session,
    batch: i64,
) -> Result<Vec<Claimed>, postgres::Error> {
    let rows = client.query(
        "WITH expired AS ( \
             SELECT l.host, l.session AS previous \
             FROM cairn_lease l LEFT JOIN cairn_session s ON s.id = l.session \
             WHERE l.session IS NOT NULL AND l.session <> $1 \
               AND (s.id IS NULL OR s.expires_at <= now()) \
               AND EXISTS (SELECT 1 FROM cairn_session me WHERE me.id = $1 AND me.expires_at > now()) \
             ORDER BY l.host LIMIT $2 \
             FOR UPDATE OF l SKIP LOCKED) \
         UPDATE cairn_lease SET session = $1, epoch = GREATEST(cairn_lease.epoch + 1, cairn_epoch_now()), since = now() \
         FROM expired WHERE cairn_lease.host = expired.host \
         RETURNING cairn_lease.host, cairn_lease.epoch, cairn_lease.run_id, expired.previous",
        &[&session.id(), &batch],
    )?;
    let mut claimed: Vec<Claimed> = rows
        .into_iter()
        .map(|row| Claimed {
            host: row.get(0),
            epoch: row.get(1),
            run_id: row.get(2),
            from_session: row.get(3),
        })
        .collect();
    claimed.sort_by(|a, b| a.host.cmp(&b.host));
    Ok(claimed)
}

impl PgStore {
    /// Claims up to `batch` hosts of expired sessions for `session`, committed at once.
    pub fn claim_expired(
        &mut self,
        session: &Session,
        batch: i64,
    ) -> Result<Vec<Claimed>, StoreError> {
        let action = "claim the hosts of expired sessions";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        let claimed = claim_expired(&mut transaction, session, batch).map_err(fail)?;
        transaction.commit().map_err(fail)?;
        Ok(claimed)
    }

    /// The connection itself, for a caller that claims inside a longer transaction of its own
    /// (and for the tests that hold one open to show two claimers splitting hosts).
    pub fn client(&mut self) -> &mut postgres::Client {
        &mut self.client
    }
}
