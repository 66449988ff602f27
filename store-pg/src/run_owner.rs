//! Which controller drives a run in the shared store, and a resume taking a run over once that
//! controller's session has expired (`cairn resume --store URL RUN`, docs/fleet.md).

use std::collections::BTreeMap;

use crate::{PgStore, Session, StoreError};

/// The controller session a run belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDriver {
    /// Its session's id.
    pub session: i64,
    /// The controller's machine, as it named itself.
    pub controller: String,
    /// Its process id there.
    pub pid: i32,
    /// When its session began, UTC (`YYYY-MM-DD HH:MM:SS`).
    pub since: String,
    /// Whether the session is alive by the database's clock.
    pub alive: bool,
}

impl RunDriver {
    /// `controller jump01, pid 4242, since 2026-12-01 10:15:03 UTC`.
    pub fn describe(&self) -> String {
        format!(
            "controller {}, pid {}, since {} UTC",
            self.controller, self.pid, self.since
        )
    }
}

/// What a take of a run found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunTake {
    /// This session drives the run now; `from` is the expired session it took it from (none
    /// when it was this session's already).
    Taken {
        /// The previous driver, whose session had expired.
        from: Option<RunDriver>,
    },
    /// A live session drives it.
    Held(RunDriver),
}

const DRIVER: &str = "\
SELECT s.id, s.controller, s.pid, \
       to_char(s.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), \
       s.expires_at > now() \
FROM cairn_run r JOIN cairn_session s ON s.id = r.session WHERE r.id = $1";

fn driver_of(row: &postgres::Row) -> RunDriver {
    RunDriver {
        session: row.get(0),
        controller: row.get(1),
        pid: row.get(2),
        since: row.get(3),
        alive: row.get(4),
    }
}

impl PgStore {
    /// The ids of the runs in the store, oldest first.
    pub fn run_ids(&mut self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .client
            .query("SELECT id FROM cairn_run ORDER BY created_at, id", &[])
            .map_err(|error| self.fail("list the runs", error))?;
        Ok(rows.into_iter().map(|row| row.get(0)).collect())
    }

    /// Who drives run `id`, if the store has it.
    pub fn run_driver(&mut self, id: &str) -> Result<Option<RunDriver>, StoreError> {
        let row = self
            .client
            .query_opt(DRIVER, &[&id])
            .map_err(|error| self.fail("read who drives a run", error))?;
        Ok(row.as_ref().map(driver_of))
    }

    /// The drivers of the runs `ids` whose session is alive by the database's clock, read in
    /// one call that waits at most the connect limit ([`PgStore::call`]). A run whose driver
    /// cannot be read is left out: `cairn runs` still lists it, from its working copy.
    pub fn live_drivers(self, ids: Vec<String>) -> Result<BTreeMap<String, RunDriver>, StoreError> {
        let (_, live) = self.call("read who drives the runs", move |store| {
            Ok(ids
                .into_iter()
                .filter_map(|id| {
                    let driver = store.run_driver(&id).ok().flatten()?;
                    driver.alive.then_some((id, driver))
                })
                .collect())
        })?;
        Ok(live)
    }

    /// Makes `session` the driver of run `id`, unless another live session drives it. The run's
    /// row is locked `FOR UPDATE`, so of two resumes racing for one run exactly one wins.
    /// `None`: the store has no run `id`.
    pub fn take_run(&mut self, session: &Session, id: &str) -> Result<Option<RunTake>, StoreError> {
        let action = "take a run over";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        let locked = format!("{DRIVER} FOR UPDATE OF r");
        let Some(row) = transaction.query_opt(&locked, &[&id]).map_err(fail)? else {
            return Ok(None);
        };
        let driver = driver_of(&row);
        if driver.session == session.id() {
            transaction.commit().map_err(fail)?;
            return Ok(Some(RunTake::Taken { from: None }));
        }
        if driver.alive {
            transaction.commit().map_err(fail)?;
            return Ok(Some(RunTake::Held(driver)));
        }
        transaction
            .execute(
                "UPDATE cairn_run SET session = $2 WHERE id = $1",
                &[&id, &session.id()],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)?;
        Ok(Some(RunTake::Taken { from: Some(driver) }))
    }

    /// Keeps run `id`'s `run.json` bytes, if `session` drives it; false when the store has no
    /// run `id` of this session (none yet, or another controller's, which is never changed).
    pub fn set_meta(
        &mut self,
        session: &Session,
        id: &str,
        meta: &[u8],
    ) -> Result<bool, StoreError> {
        let updated = self
            .client
            .execute(
                "UPDATE cairn_run SET meta = $2 WHERE id = $1 AND session = $3",
                &[&id, &meta, &session.id()],
            )
            .map_err(|error| self.fail("store a run's run.json", error))?;
        Ok(updated == 1)
    }

    /// Run `id`'s `run.json` bytes, if it has them.
    pub fn meta(&mut self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let row = self
            .client
            .query_opt("SELECT meta FROM cairn_run WHERE id = $1", &[&id])
            .map_err(|error| self.fail("read a run's run.json", error))?;
        Ok(row.and_then(|row| row.get(0)))
    }
}
