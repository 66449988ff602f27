//! The one connection a controller's run shares for everything but its journal appends
//! (leases, the run's record, the session's close), each call waiting for its answer only so
//! long ([`crate::answer_within`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::{PgStore, StoreError, StoreUrl};

/// The shared connection, and whether a call on it went unanswered.
#[derive(Debug)]
pub(crate) struct SharedConnection {
    store: Mutex<PgStore>,
    url: StoreUrl,
    /// A call got no answer: it still holds the connection, so every later call would wait
    /// behind it; they fail at once instead of each waiting out its limit.
    silent: AtomicBool,
}

impl SharedConnection {
    pub(crate) fn new(store: PgStore) -> Arc<Self> {
        Arc::new(Self {
            url: store.url().clone(),
            store: Mutex::new(store),
            silent: AtomicBool::new(false),
        })
    }

    /// The connection itself, for the call that holds it.
    fn lock(&self) -> MutexGuard<'_, PgStore> {
        // A panic while holding the connection leaves it usable or closed; either is reported
        // by the next call.
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` on the connection, waiting for its answer for `limit` at most;
    /// [`StoreError::NoAnswer`] to `action` after that, and at once once a call went
    /// unanswered.
    pub(crate) fn call<T: Send + 'static>(
        self: &Arc<Self>,
        limit: Duration,
        action: &'static str,
        f: impl FnOnce(&mut PgStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        if self.silent.load(Ordering::SeqCst) {
            return Err(StoreError::no_answer(&self.url, action, limit));
        }
        let connection = Arc::clone(self);
        match crate::answer_within(limit, move || f(&mut connection.lock())) {
            Some(answer) => answer,
            None => {
                self.silent.store(true, Ordering::SeqCst);
                Err(StoreError::no_answer(&self.url, action, limit))
            }
        }
    }
}
