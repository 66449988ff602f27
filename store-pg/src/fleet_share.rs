//! A run shared by several controllers from the start (`cairn run --controllers N`; the
//! runtime's `fleet.rs`): its shares, each a run of its own claimed by one controller, and the
//! barrier and budget that span them. Every statement is short; the budget's take is one
//! transaction serialised on the shared run's first share row (`FOR UPDATE`), so two
//! controllers never both take the last place.

use crate::{PgStore, Session, StoreError};

/// A share a controller claimed with `cairn join`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedShare {
    /// The shared run's id (its first share's).
    pub fleet_run: String,
    /// The share's number, from 2 (the first is its starter's).
    pub share: i32,
    /// How many shares the run has.
    pub shares: i32,
    /// The share's own run id.
    pub run_id: String,
}

impl PgStore {
    /// Records the shares of new shared run `fleet_run`: the first (`first`, `first_hosts`
    /// hosts) claimed by `session`, each other (run id, host count) unclaimed.
    pub fn open_fleet(
        &mut self,
        session: &Session,
        fleet_run: &str,
        first_hosts: usize,
        others: &[(String, usize)],
    ) -> Result<(), StoreError> {
        let action = "record a shared run's shares";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let shares = count(others.len() + 1);
        let mut transaction = self.client.transaction().map_err(fail)?;
        transaction
            .execute(
                "INSERT INTO cairn_fleet_share (fleet_run, share, shares, run_id, session, live) \
                 VALUES ($1, 1, $2, $1, $3, $4)",
                &[&fleet_run, &shares, &session.id(), &count(first_hosts)],
            )
            .map_err(fail)?;
        for ((run_id, hosts), share) in others.iter().zip(2..) {
            transaction
                .execute(
                    "INSERT INTO cairn_fleet_share (fleet_run, share, shares, run_id, live) \
                     VALUES ($1, $2, $3, $4, $5)",
                    &[&fleet_run, &share, &shares, run_id, &count(*hosts)],
                )
                .map_err(fail)?;
        }
        transaction.commit().map_err(fail)
    }

    /// Claims for `session` the first unclaimed share of `fleet_run` (or of the newest shared
    /// run with one), and makes it the driver of that share's run: of two controllers joining
    /// at once each gets its own (`SKIP LOCKED`). `None`: no share is left to claim.
    pub fn claim_share(
        &mut self,
        session: &Session,
        fleet_run: Option<&str>,
    ) -> Result<Option<ClaimedShare>, StoreError> {
        let action = "claim a share of a shared run";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        let row = transaction
            .query_opt(
                "UPDATE cairn_fleet_share f SET session = $1 \
                 FROM (SELECT fleet_run, share FROM cairn_fleet_share \
                       WHERE session IS NULL AND ($2::text IS NULL OR fleet_run = $2) \
                       ORDER BY fleet_run DESC, share LIMIT 1 FOR UPDATE SKIP LOCKED) next \
                 WHERE f.fleet_run = next.fleet_run AND f.share = next.share \
                 RETURNING f.fleet_run, f.share, f.shares, f.run_id",
                &[&session.id(), &fleet_run],
            )
            .map_err(fail)?;
        let Some(row) = row else {
            transaction.commit().map_err(fail)?;
            return Ok(None);
        };
        let claimed = ClaimedShare {
            fleet_run: row.get(0),
            share: row.get(1),
            shares: row.get(2),
            run_id: row.get(3),
        };
        transaction
            .execute(
                "UPDATE cairn_run SET session = $2 WHERE id = $1",
                &[&claimed.run_id, &session.id()],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)?;
        Ok(Some(claimed))
    }

    /// Share `share` of `fleet_run` has all its `live` hosts at stage `stage`: recorded, and
    /// how many shares with a host still in the run have not reached it (and of them, how
    /// many no controller has claimed).
    pub fn share_reached(
        &mut self,
        fleet_run: &str,
        share: i32,
        stage: u64,
        live: usize,
    ) -> Result<(usize, usize), StoreError> {
        let stage = i64::try_from(stage).unwrap_or(i64::MAX);
        self.client
            .execute(
                "UPDATE cairn_fleet_share SET reached = $3, live = $4 \
                 WHERE fleet_run = $1 AND share = $2",
                &[&fleet_run, &share, &stage, &count(live)],
            )
            .map_err(|error| self.fail("record a share at a barrier", error))?;
        let row = self
            .client
            .query_one(
                "SELECT count(*), count(*) FILTER (WHERE session IS NULL) FROM cairn_fleet_share \
                 WHERE fleet_run = $1 AND reached < $2 AND live > 0",
                &[&fleet_run, &stage],
            )
            .map_err(|error| self.fail("read a shared run's barrier", error))?;
        let (behind, unclaimed): (i64, i64) = (row.get(0), row.get(1));
        Ok((
            usize::try_from(behind).unwrap_or(usize::MAX),
            usize::try_from(unclaimed).unwrap_or(usize::MAX),
        ))
    }

    /// Share `share` of `fleet_run` has `live` hosts still in the run.
    pub fn share_live(
        &mut self,
        fleet_run: &str,
        share: i32,
        live: usize,
    ) -> Result<(), StoreError> {
        self.client
            .execute(
                "UPDATE cairn_fleet_share SET live = $3 WHERE fleet_run = $1 AND share = $2",
                &[&fleet_run, &share, &count(live)],
            )
            .map_err(|error| self.fail("record a share's hosts", error))?;
        Ok(())
    }

    /// Takes a place for `host` in shared run `fleet_run`'s budget, in each of `pools` (label,
    /// limit; the empty label is the run's own): `None` when taken or held already, else the
    /// other hosts that fill the first full pool.
    pub fn take_place(
        &mut self,
        fleet_run: &str,
        host: &str,
        pools: &[(String, usize)],
    ) -> Result<Option<Vec<String>>, StoreError> {
        let action = "take a place in a shared run's budget";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        transaction
            .execute(
                "SELECT 1 FROM cairn_fleet_share WHERE fleet_run = $1 AND share = 1 FOR UPDATE",
                &[&fleet_run],
            )
            .map_err(fail)?;
        let held = transaction
            .query_opt(
                "SELECT 1 FROM cairn_fleet_down WHERE fleet_run = $1 AND host = $2",
                &[&fleet_run, &host],
            )
            .map_err(fail)?;
        if held.is_some() {
            transaction.commit().map_err(fail)?;
            return Ok(None);
        }
        for (label, limit) in pools {
            let holders: Vec<String> = transaction
                .query(
                    "SELECT host FROM cairn_fleet_down \
                     WHERE fleet_run = $1 AND $2 = ANY (pools) ORDER BY host",
                    &[&fleet_run, label],
                )
                .map_err(fail)?
                .into_iter()
                .map(|row| row.get(0))
                .collect();
            if holders.len() >= *limit {
                transaction.commit().map_err(fail)?;
                return Ok(Some(holders));
            }
        }
        let labels: Vec<&str> = pools.iter().map(|(label, _)| label.as_str()).collect();
        transaction
            .execute(
                "INSERT INTO cairn_fleet_down (fleet_run, host, pools) VALUES ($1, $2, $3)",
                &[&fleet_run, &host, &labels],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)?;
        Ok(None)
    }

    /// Gives `host`'s place in shared run `fleet_run`'s budget back.
    pub fn give_place(&mut self, fleet_run: &str, host: &str) -> Result<(), StoreError> {
        self.client
            .execute(
                "DELETE FROM cairn_fleet_down WHERE fleet_run = $1 AND host = $2",
                &[&fleet_run, &host],
            )
            .map_err(|error| self.fail("give a place in a shared run's budget back", error))?;
        Ok(())
    }
}

impl PgStore {
    /// Gives the places of all of `hosts` in shared run `fleet_run`'s budget back.
    pub fn give_places(&mut self, fleet_run: &str, hosts: &[String]) -> Result<(), StoreError> {
        self.client
            .execute(
                "DELETE FROM cairn_fleet_down WHERE fleet_run = $1 AND host = ANY ($2)",
                &[&fleet_run, &hosts],
            )
            .map_err(|error| self.fail("give places in a shared run's budget back", error))?;
        Ok(())
    }
}

/// A count as the store's `integer` columns keep it.
fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
