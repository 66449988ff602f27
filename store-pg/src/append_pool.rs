//! The connections a run's journal appends go through: a few worker threads, each with a
//! connection of its own, so that hosts appending at once each commit on their own instead of
//! queueing on one. On one connection the 64-host fan-out ran 4.3 times the folder store's
//! time, each fenced append waiting for the others' round trips and commits; with several,
//! PostgreSQL also groups their commits' flushes.
//!
//! Why workers and not a pool the caller borrows from: the caller waits for an append's answer
//! only so long (a store that answers nothing breaks no connection, [`crate::answer_within`]),
//! so the call runs on another thread; the workers are that thread, started once, where a
//! thread spawned for each append cost the fan-out 1.4 times its time. A worker whose call
//! never returns is lost with its connection; the others go on. A connection found closed (a
//! restarted server) or lost is dropped, and the worker's next append opens a new one.

use std::sync::mpsc::{Receiver, Sender, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{PgStore, StoreError, StoreUrl};

/// Workers, so connections, a run's appends may use at once.
const APPEND_WORKERS: usize = 8;

/// One append (or count) to run on a worker's connection; it sends its own answer.
type Job = Box<dyn FnOnce(&mut WorkerConnection) + Send>;

/// A worker's connection, opened when its first job comes and again after it was lost.
struct WorkerConnection {
    url: StoreUrl,
    store: Option<PgStore>,
}

impl WorkerConnection {
    fn run<T>(
        &mut self,
        f: impl FnOnce(&mut PgStore) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.store.as_ref().is_none_or(PgStore::is_closed) {
            self.store = None;
        }
        let store = match &mut self.store {
            Some(store) => store,
            empty => empty.insert(PgStore::connect_checked(&self.url)?),
        };
        let answer = f(store);
        if answer.as_ref().is_err_and(StoreError::is_lost) {
            self.store = None;
        }
        answer
    }
}

/// The appends' workers for one URL; clones share them, and they end with the last clone.
#[derive(Debug, Clone)]
pub(crate) struct AppendPool {
    jobs: Sender<Job>,
    url: StoreUrl,
}

impl AppendPool {
    pub(crate) fn new(url: &StoreUrl) -> Self {
        let (jobs, queue) = channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..APPEND_WORKERS {
            let (queue, url) = (Arc::clone(&queue), url.clone());
            // A worker that cannot be started leaves the others (and, with none, every append
            // fails with no answer: the run stops, it does not hang).
            let _ = std::thread::Builder::new()
                .name(format!("store-append-{n}"))
                .spawn(move || work(&queue, WorkerConnection { url, store: None }));
        }
        Self {
            jobs,
            url: url.clone(),
        }
    }

    /// The store's URL.
    pub(crate) fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// Runs `f` on a worker's connection, waiting for its answer for `limit` at most;
    /// [`StoreError::NoAnswer`] to `action` after that.
    pub(crate) fn within<T: Send + 'static>(
        &self,
        limit: Duration,
        action: &'static str,
        f: impl FnOnce(&mut PgStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (answer, answered) = sync_channel(1);
        let job: Job = Box::new(move |connection| {
            // The caller may have stopped waiting: nobody to tell then.
            let _ = answer.send(connection.run(f));
        });
        if self.jobs.send(job).is_err() {
            return Err(StoreError::NoConnection {
                url: self.url.redacted(),
                reason: "the append workers have ended".into(),
            });
        }
        answered
            .recv_timeout(limit)
            .unwrap_or_else(|_| Err(StoreError::no_answer(&self.url, action, limit)))
    }
}

/// A worker: takes the next job and runs it, until every [`AppendPool`] is gone.
fn work(queue: &Mutex<Receiver<Job>>, mut connection: WorkerConnection) {
    loop {
        let job = {
            let queue = queue.lock().unwrap_or_else(|e| e.into_inner());
            queue.recv()
        };
        match job {
            Ok(job) => job(&mut connection),
            Err(_) => return,
        }
    }
}
