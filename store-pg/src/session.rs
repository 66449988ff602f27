//! A controller's session: alive while renewed within its TTL by the database's clock, and
//! trusted by the controller itself only until a deadline on its own clock.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{BootInstant, PgStore, StoreError};

/// The default session TTL (`--lease-ttl`, issue 25).
pub const DEFAULT_TTL: Duration = Duration::from_secs(30);

/// The default self-demotion margin and heartbeat interval for `ttl`: a third of it each, so
/// one lost renewal still leaves the controller a third of its TTL to act in.
pub fn default_margin(ttl: Duration) -> Duration {
    ttl / 3
}

/// A controller session. Clones share the time of the last renewal (the heartbeat renews a
/// clone on its own thread).
#[derive(Debug, Clone)]
pub struct Session {
    id: i64,
    ttl: Duration,
    margin: Duration,
    /// When the last successful renewal was *sent*, on this machine's boot clock.
    renewed: Arc<Mutex<BootInstant>>,
}

impl Session {
    /// The session's id in the store.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// Its TTL.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// The self-demotion deadline: `last renewal + ttl - margin`. The renewal's time is taken
    /// before the statement is sent, so the database's expiry (its `now()` when it ran, plus
    /// the TTL) is never earlier than this deadline plus the margin; the margin covers the two
    /// clocks running at slightly different rates and the time to finish an action's journal
    /// append.
    pub fn deadline(&self) -> BootInstant {
        self.renewed_at()
            .after(self.ttl.saturating_sub(self.margin))
    }

    /// Whether this controller may begin a new action now: before its deadline.
    pub fn may_act(&self) -> bool {
        BootInstant::now() < self.deadline()
    }

    /// How long a store call of this session waits for its answer: until the session would
    /// expire by the store's clock (`last renewal + ttl`, never earlier there), for at least
    /// the margin. A store that has not answered by then would refuse the call anyway.
    pub fn answer_limit(&self) -> Duration {
        let expiry = self.renewed_at().after(self.ttl);
        BootInstant::now().until(expiry).max(self.margin)
    }

    fn renewed_at(&self) -> BootInstant {
        // A poisoned lock still holds a valid instant.
        *self
            .renewed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn set_renewed(&self, at: BootInstant) {
        let mut renewed = self
            .renewed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Renewals from two threads may finish out of order: keep the later.
        if at > *renewed {
            *renewed = at;
        }
    }
}

impl PgStore {
    /// Opens a session for this controller with `ttl` (its self-demotion `margin` before it).
    pub fn open_session(
        &mut self,
        controller: &str,
        pid: u32,
        ttl: Duration,
        margin: Duration,
    ) -> Result<Session, StoreError> {
        let sent = BootInstant::now();
        let pid = i32::try_from(pid).unwrap_or(i32::MAX);
        let row = self
            .client
            .query_one(
                "INSERT INTO cairn_session (controller, pid, ttl, expires_at) \
                 VALUES ($1, $2, make_interval(secs => $3), now() + make_interval(secs => $3)) \
                 RETURNING id",
                &[&controller, &pid, &ttl.as_secs_f64()],
            )
            .map_err(|error| self.fail("open a controller session", error))?;
        Ok(Session {
            id: row.get(0),
            ttl,
            margin: margin.min(ttl),
            renewed: Arc::new(Mutex::new(sent)),
        })
    }

    /// Renews `session` for another TTL from the database's `now()`; an expired session stays
    /// expired ([`StoreError::SessionExpired`]), since its hosts may already be another's.
    pub fn renew(&mut self, session: &Session) -> Result<(), StoreError> {
        let sent = BootInstant::now();
        let renewed = self
            .client
            .execute(
                "UPDATE cairn_session SET expires_at = now() + ttl \
                 WHERE id = $1 AND expires_at > now()",
                &[&session.id],
            )
            .map_err(|error| self.fail("renew the controller session", error))?;
        if renewed == 0 {
            return Err(StoreError::SessionExpired {
                session: session.id,
            });
        }
        session.set_renewed(sent);
        Ok(())
    }

    /// Ends `session` at once (its expiry set to now) and gives back its leases.
    pub fn close_session(&mut self, session: &Session) -> Result<(), StoreError> {
        let action = "close the controller session";
        let url = self.url.clone();
        let fail = |error| crate::connection_fail(&url, action, error);
        let mut transaction = self.client.transaction().map_err(fail)?;
        transaction
            .execute(
                "UPDATE cairn_lease SET session = NULL, run_id = NULL, holder = NULL \
                 WHERE session = $1",
                &[&session.id],
            )
            .map_err(fail)?;
        transaction
            .execute(
                "UPDATE cairn_session SET expires_at = now() WHERE id = $1",
                &[&session.id],
            )
            .map_err(fail)?;
        transaction.commit().map_err(fail)
    }

    /// Whether `session` is alive by the database's clock.
    pub fn session_alive(&mut self, session: &Session) -> Result<bool, StoreError> {
        let row = self
            .client
            .query_opt(
                "SELECT 1 FROM cairn_session WHERE id = $1 AND expires_at > now()",
                &[&session.id],
            )
            .map_err(|error| self.fail("read the controller session", error))?;
        Ok(row.is_some())
    }
}
