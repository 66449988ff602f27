//! The connections a run's journal appends go through: a small pool (r2d2), so that hosts
//! appending at once each commit on a connection of their own instead of queueing on one. On
//! one connection the 64-host fan-out ran 4.3 times the folder store's time, each fenced append
//! waiting for the others' round trips and commits; with several, PostgreSQL also groups their
//! commits' flushes. A connection found closed (a restarted server) is dropped from the pool
//! and the next append opens a new one.

use std::time::Duration;

use crate::{PgStore, StoreError, StoreUrl};

/// Connections a run's appends may hold at once.
const APPEND_CONNECTIONS: u32 = 8;

/// How long an append waits for a free connection before it fails its host.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens [`PgStore`] connections to one URL for the pool.
#[derive(Debug)]
pub(crate) struct StoreConnections {
    url: StoreUrl,
}

impl r2d2::ManageConnection for StoreConnections {
    type Connection = PgStore;
    type Error = StoreError;

    fn connect(&self) -> Result<PgStore, StoreError> {
        PgStore::connect(&self.url)
    }

    fn is_valid(&self, store: &mut PgStore) -> Result<(), StoreError> {
        if store.is_closed() {
            return Err(StoreError::NoConnection {
                url: store.url().redacted(),
                reason: "the connection is closed".into(),
            });
        }
        Ok(())
    }

    fn has_broken(&self, store: &mut PgStore) -> bool {
        store.is_closed()
    }
}

/// The appends' pool of connections to one URL, opened as appends need them.
#[derive(Debug, Clone)]
pub(crate) struct AppendPool {
    pool: r2d2::Pool<StoreConnections>,
    url: StoreUrl,
}

impl AppendPool {
    pub(crate) fn new(url: &StoreUrl) -> Self {
        let pool = r2d2::Pool::builder()
            .max_size(APPEND_CONNECTIONS)
            .min_idle(Some(0))
            .connection_timeout(CHECKOUT_TIMEOUT)
            .test_on_check_out(false)
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build_unchecked(StoreConnections { url: url.clone() });
        Self {
            pool,
            url: url.clone(),
        }
    }

    /// The store's URL.
    pub(crate) fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// Runs `f` on a connection of the pool, waiting for its answer for `limit` at most
    /// ([`crate::answer_within`]); [`StoreError::NoAnswer`] to `action` after that.
    pub(crate) fn within<T: Send + 'static>(
        &self,
        limit: Duration,
        action: &'static str,
        f: impl FnOnce(&mut PgStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let pool = self.clone();
        crate::answer_within(limit, move || pool.with(f))
            .unwrap_or_else(|| Err(StoreError::no_answer(&self.url, action, limit)))
    }

    /// Runs `f` on a connection of the pool.
    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&mut PgStore) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut store = self.pool.get().map_err(|error| StoreError::NoConnection {
            url: self.url.redacted(),
            reason: error.to_string(),
        })?;
        f(&mut store)
    }
}
