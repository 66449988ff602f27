//! Journal appends, each fenced by the host's lease in its own transaction.

use crate::{PgStore, Session, StoreError};

/// The fenced append: one statement, so one transaction. The lease row is read `FOR SHARE`: a
/// takeover's `FOR UPDATE` of the same row waits for this append to commit (so the new owner
/// reads it), or this append waits for the takeover and then finds the row changed and inserts
/// nothing. The same shape as Temporal's shard writes (`temporalio/temporal`,
/// `common/persistence/sql/shard.go`, reading the owner row `FOR SHARE` and failing when its
/// `range_id` moved). The session must also be alive by the database's clock.
const FENCED_APPEND: &str = "\
INSERT INTO cairn_journal (run_id, host, epoch, session, record)
SELECT $1, $2, $3, $4, $5
WHERE EXISTS (
    SELECT 1 FROM cairn_lease l JOIN cairn_session s ON s.id = l.session
    WHERE l.host = $6 AND l.session = $4 AND l.epoch = $3 AND s.expires_at > now()
    FOR SHARE OF l)
RETURNING seq";

/// Several hosts' fenced appends in one statement, so one round trip and one commit: each row
/// is fenced by its own lease exactly as [`FENCED_APPEND`] fences one, and a row whose lease
/// moved is not inserted while the others are. The rows come sorted by lease host, so the
/// `FOR SHARE` locks are taken in the order a run's takes lock leases (identity order): a
/// batch and a take that waits for it cannot wait for each other in a circle.
const FENCED_BATCH: &str = "\
INSERT INTO cairn_journal (run_id, host, epoch, session, record)
SELECT a.run_id, a.journal, a.epoch, a.session, a.record
FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::bytea[], $6::text[])
    AS a(run_id, journal, epoch, session, record, lease_host)
WHERE EXISTS (
    SELECT 1 FROM cairn_lease l JOIN cairn_session s ON s.id = l.session
    WHERE l.host = a.lease_host AND l.session = a.session AND l.epoch = a.epoch
        AND s.expires_at > now()
    FOR SHARE OF l)
RETURNING run_id, host, seq";

/// One record of a batch: where it goes and the lease that fences it.
#[derive(Debug, Clone)]
pub struct LeasedRecord {
    /// The appending controller's session id.
    pub session: i64,
    /// The run.
    pub run_id: String,
    /// The journal's name: the host's name in the run's inventory.
    pub journal: String,
    /// The identity of the host whose lease fences it.
    pub host: String,
    /// The epoch of that lease the session holds.
    pub epoch: i64,
    /// The journal line, with its newline.
    pub record: Vec<u8>,
}

/// A record no host lease covers (the `controller` journal): appended while the session lives.
const SESSION_APPEND: &str = "\
INSERT INTO cairn_journal (run_id, host, epoch, session, record)
SELECT $1, $2, 0, $3, $4
WHERE EXISTS (SELECT 1 FROM cairn_session WHERE id = $3 AND expires_at > now())
RETURNING seq";

impl PgStore {
    /// Appends `record` (a journal line, as the folder store writes it) to `host`'s journal of
    /// `run_id`, if `session` still holds `host` at `epoch`. Returns the record's sequence
    /// number; [`StoreError::Fenced`] when the lease moved (or the session expired): nothing
    /// was written.
    pub fn append(
        &mut self,
        session: &Session,
        run_id: &str,
        host: &str,
        epoch: i64,
        record: &[u8],
    ) -> Result<i64, StoreError> {
        self.append_leased(session, run_id, host, host, epoch, record)
    }

    /// [`PgStore::append`] to the journal `journal` (the host's name in the run's inventory)
    /// fenced by the lease of `host` (its identity, which two inventories share).
    pub fn append_leased(
        &mut self,
        session: &Session,
        run_id: &str,
        journal: &str,
        host: &str,
        epoch: i64,
        record: &[u8],
    ) -> Result<i64, StoreError> {
        let row = self
            .prepared(FENCED_APPEND)
            .and_then(|statement| {
                self.client.query_opt(
                    &statement,
                    &[&run_id, &journal, &epoch, &session.id(), &record, &host],
                )
            })
            .map_err(|error| self.fail("append to a journal", error))?;
        match row {
            Some(row) => Ok(row.get(0)),
            None => Err(self.fenced(session.id(), host, epoch)),
        }
    }

    /// Appends each of `records` (at most one per journal) as [`PgStore::append_leased`]
    /// does, all in one statement; the answers in their order: each record's sequence number,
    /// or [`StoreError::Fenced`] for one whose lease moved (nothing of it was written). The
    /// outer error is the statement's: then none was written, or, for a lost connection, it is
    /// not known whether all were.
    pub fn append_batch(
        &mut self,
        records: &[LeasedRecord],
    ) -> Result<Vec<Result<i64, StoreError>>, StoreError> {
        let column =
            |f: fn(&LeasedRecord) -> &str| -> Vec<&str> { records.iter().map(f).collect() };
        let (runs, journals, hosts) = (
            column(|r| &r.run_id),
            column(|r| &r.journal),
            column(|r| &r.host),
        );
        let epochs: Vec<i64> = records.iter().map(|r| r.epoch).collect();
        let sessions: Vec<i64> = records.iter().map(|r| r.session).collect();
        let lines: Vec<&[u8]> = records.iter().map(|r| r.record.as_slice()).collect();
        let rows = self
            .prepared(FENCED_BATCH)
            .and_then(|statement| {
                self.client.query(
                    &statement,
                    &[&runs, &journals, &epochs, &sessions, &lines, &hosts],
                )
            })
            .map_err(|error| self.fail("append to a journal", error))?;
        let written: std::collections::HashMap<(String, String), i64> = rows
            .into_iter()
            .map(|row| ((row.get(0), row.get(1)), row.get(2)))
            .collect();
        Ok(records
            .iter()
            .map(
                |r| match written.get(&(r.run_id.clone(), r.journal.clone())) {
                    Some(seq) => Ok(*seq),
                    None => Err(self.fenced(r.session, &r.host, r.epoch)),
                },
            )
            .collect())
    }

    /// The refusal of an append by `session` fenced by `host`'s lease at `epoch`, saying who
    /// holds the host now.
    fn fenced(&mut self, session: i64, host: &str, epoch: i64) -> StoreError {
        let now = match self.lease_of(host) {
            Ok(Some((Some(owner), now_epoch))) if owner != session || now_epoch != epoch => {
                format!("session {owner} holds it at epoch {now_epoch}")
            }
            Ok(Some((Some(_), _))) => "this controller's session expired".into(),
            Ok(Some((None, now_epoch))) => format!("it was given back at epoch {now_epoch}"),
            Ok(None) => "it was never taken".into(),
            Err(_) => "the store could not say who holds it now".into(),
        };
        StoreError::Fenced {
            host: host.to_owned(),
            epoch,
            now,
        }
    }

    /// Appends `record` to `journal` of `run_id` if `session` is alive by the database's clock
    /// (a journal no host lease covers); [`StoreError::SessionExpired`] when it is not.
    pub fn append_in_session(
        &mut self,
        session: &Session,
        run_id: &str,
        journal: &str,
        record: &[u8],
    ) -> Result<i64, StoreError> {
        let row = self
            .prepared(SESSION_APPEND)
            .and_then(|statement| {
                self.client
                    .query_opt(&statement, &[&run_id, &journal, &session.id(), &record])
            })
            .map_err(|error| self.fail("append to a journal", error))?;
        match row {
            Some(row) => Ok(row.get(0)),
            None => Err(StoreError::SessionExpired {
                session: session.id(),
            }),
        }
    }

    /// How many records `journal` of run `run_id` holds.
    pub fn record_count(&mut self, run_id: &str, journal: &str) -> Result<usize, StoreError> {
        let row = self
            .client
            .query_one(
                "SELECT count(*) FROM cairn_journal WHERE run_id = $1 AND host = $2",
                &[&run_id, &journal],
            )
            .map_err(|error| self.fail("count a journal's records", error))?;
        Ok(usize::try_from(row.get::<_, i64>(0)).unwrap_or(0))
    }

    /// The journals run `run_id` has, by name.
    pub fn journals(&mut self, run_id: &str) -> Result<Vec<String>, StoreError> {
        let rows = self
            .client
            .query(
                "SELECT DISTINCT host FROM cairn_journal WHERE run_id = $1 ORDER BY host",
                &[&run_id],
            )
            .map_err(|error| self.fail("list a run's journals", error))?;
        Ok(rows.into_iter().map(|row| row.get(0)).collect())
    }

    /// The records of `host` in run `run_id`, in the order they were appended.
    pub fn records(&mut self, run_id: &str, host: &str) -> Result<Vec<Vec<u8>>, StoreError> {
        let rows = self
            .client
            .query(
                "SELECT record FROM cairn_journal WHERE run_id = $1 AND host = $2 ORDER BY seq",
                &[&run_id, &host],
            )
            .map_err(|error| self.fail("read a journal", error))?;
        Ok(rows.into_iter().map(|row| row.get(0)).collect())
    }
}
