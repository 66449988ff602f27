//! The store's tables, created or migrated when a controller connects.
//!
//! Each migration is applied once, in order, in one transaction holding a transaction-scoped
//! advisory lock (so two controllers connecting at once do not both create the tables; being
//! transaction-scoped it is released at COMMIT, which is safe behind a pooler in transaction
//! mode). The version reached is in `cairn_schema`.

use crate::{PgStore, StoreError};

/// The newest schema version this cairn knows.
pub const SCHEMA_VERSION: i32 = 6;

/// Any constant of our own: the key of the advisory lock that serialises migrations.
const MIGRATION_LOCK: i64 = 0x6361_6972_6e00_0001;

/// Version 1: sessions, leases, runs, journals.
const V1: &str = r#"
CREATE TABLE cairn_session (
    id          bigserial PRIMARY KEY,
    controller  text NOT NULL,
    pid         integer NOT NULL,
    ttl         interval NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    -- Judged against the database's now(), never a controller's clock.
    expires_at  timestamptz NOT NULL
);

-- One row per host, never deleted: its epoch only grows.
CREATE TABLE cairn_lease (
    host        text PRIMARY KEY,
    session     bigint,
    epoch       bigint NOT NULL DEFAULT 0 CHECK (epoch >= 0),
    run_id      text,
    holder      jsonb,
    since       timestamptz
);
CREATE INDEX cairn_lease_session ON cairn_lease (session);

CREATE FUNCTION cairn_lease_epoch_only_grows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'the lease of % is never deleted: its epoch would start again', OLD.host;
    END IF;
    IF NEW.epoch < OLD.epoch THEN
        RAISE EXCEPTION 'the epoch of % only grows (% to %)', OLD.host, OLD.epoch, NEW.epoch;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER cairn_lease_epoch_only_grows BEFORE UPDATE OR DELETE ON cairn_lease
    FOR EACH ROW EXECUTE FUNCTION cairn_lease_epoch_only_grows();

-- A run, whole: another controller resumes it from these alone.
CREATE TABLE cairn_run (
    id            text PRIMARY KEY,
    session       bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    runbook_path  text NOT NULL,
    runbook       bytea NOT NULL,
    inventory     bytea NOT NULL,
    params        jsonb NOT NULL
);
CREATE TABLE cairn_run_module (
    run_id  text NOT NULL REFERENCES cairn_run (id) ON DELETE CASCADE,
    path    text NOT NULL,
    source  bytea NOT NULL,
    PRIMARY KEY (run_id, path)
);

-- Journal lines as the folder store writes them (bytes, not re-encoded jsonb), each with the
-- session and epoch it was fenced by.
CREATE TABLE cairn_journal (
    seq      bigserial PRIMARY KEY,
    run_id   text NOT NULL,
    host     text NOT NULL,
    epoch    bigint NOT NULL,
    session  bigint NOT NULL,
    at       timestamptz NOT NULL DEFAULT now(),
    record   bytea NOT NULL
);
CREATE INDEX cairn_journal_run_host ON cairn_journal (run_id, host, seq);
"#;

/// Version 2: a run's `run.json` as the folder store writes it, so that `cairn runs`,
/// `journal`, `report` and `resume` on another machine read what the folder store reads.
const V2: &str = "ALTER TABLE cairn_run ADD COLUMN meta bytea;";

/// Version 3: a take's epoch is at least the take time in milliseconds (the database's clock),
/// as a folder lease's is (`runtime/src/lease/folder_leases.rs`), so that a host once driven
/// through the folder store, whose fence keeps a millisecond epoch, does not refuse every
/// later command of the shared store for an epoch counted from 1.
const V3: &str = "CREATE FUNCTION cairn_epoch_now() RETURNS bigint LANGUAGE sql STABLE AS \
    $$ SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;";

/// Version 4: run ids reserved across controllers. A controller names a run by the time it
/// starts, and two controllers starting in one second chose the same id: the second one's
/// records joined the first one's run. Each id is now reserved here before the run's folder is
/// used (`run_id.rs`).
const V4: &str = "CREATE TABLE cairn_run_id ( \
    id          text PRIMARY KEY, \
    session     bigint NOT NULL, \
    reserved_at timestamptz NOT NULL DEFAULT now());";

/// Version 5: the runbook's path under its import root, so that a working copy lays out the
/// modules it imports from its pack's `lib/` and from `--lib` folders as the run found them.
const V5: &str = "ALTER TABLE cairn_run ADD COLUMN runbook_name text;";

/// Version 6: runs shared between controllers from the start (`cairn run --controllers N`,
/// `fleet.rs`): each share (a run of its own) with the controller that claimed it (none yet:
/// `cairn join` may), the stage its hosts have all reached and how many are still in the run
/// (the barrier that spans the shares), and the hosts down across the shares (the budget).
const V6: &str = "CREATE TABLE cairn_fleet_share ( \
    fleet_run  text NOT NULL, \
    share      integer NOT NULL, \
    shares     integer NOT NULL, \
    run_id     text NOT NULL UNIQUE, \
    session    bigint, \
    reached    bigint NOT NULL DEFAULT 0, \
    live       integer NOT NULL, \
    PRIMARY KEY (fleet_run, share)); \
CREATE INDEX cairn_fleet_share_open ON cairn_fleet_share (fleet_run) WHERE session IS NULL; \
CREATE TABLE cairn_fleet_down ( \
    fleet_run  text NOT NULL, \
    host       text NOT NULL, \
    pools      text[] NOT NULL, \
    PRIMARY KEY (fleet_run, host));";

/// The migrations, version `n` at index `n - 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [V1, V2, V3, V4, V5, V6];

impl PgStore {
    /// Brings the schema to [`SCHEMA_VERSION`]; refuses a newer one.
    pub(crate) fn migrate(&mut self) -> Result<(), StoreError> {
        let action = "create the schema";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .map_err(fail)?;
        transaction
            .batch_execute("CREATE TABLE IF NOT EXISTS cairn_schema (version integer NOT NULL)")
            .map_err(fail)?;
        let found: i32 = transaction
            .query_opt("SELECT version FROM cairn_schema", &[])
            .map_err(fail)?
            .map_or(0, |row| row.get(0));
        if found > SCHEMA_VERSION {
            return Err(StoreError::SchemaTooNew {
                found,
                known: SCHEMA_VERSION,
            });
        }
        for migration in &MIGRATIONS[found as usize..] {
            transaction.batch_execute(migration).map_err(fail)?;
        }
        if found == 0 {
            transaction
                .execute("INSERT INTO cairn_schema VALUES ($1)", &[&SCHEMA_VERSION])
                .map_err(fail)?;
        } else if found < SCHEMA_VERSION {
            transaction
                .execute("UPDATE cairn_schema SET version = $1", &[&SCHEMA_VERSION])
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }
}
