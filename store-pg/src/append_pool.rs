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
//!
//! A worker that takes a fenced append also takes every other one queued behind it (at most
//! one per journal) and sends them as one statement ([`PgStore::append_batch`]): hosts that
//! append at once share a round trip and a commit, as a database groups its commits. Each
//! record is still fenced by its own lease; a host waits no longer than before, since a batch
//! is only what had queued while the workers were busy.

use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{LeasedRecord, PgStore, StoreError, StoreUrl};

/// Workers, so connections, a run's appends may use at once.
const APPEND_WORKERS: usize = 2;

/// The most fenced appends one statement carries.
const MOST_IN_BATCH: usize = 256;

/// What a worker runs on its connection.
enum Job {
    /// A call (a count, an unfenced append) that sends its own answer.
    Call(Box<dyn FnOnce(&mut WorkerConnection) + Send>),
    /// A fenced append, which may go with others.
    Append(Append),
}

/// A fenced append and where its answer goes.
struct Append {
    record: LeasedRecord,
    answer: SyncSender<Result<i64, StoreError>>,
}

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
        let job = Job::Call(Box::new(move |connection| {
            // The caller may have stopped waiting: nobody to tell then.
            let _ = answer.send(connection.run(f));
        }));
        self.send(job, answered, limit, action)
    }

    /// Appends `record` on a worker's connection, with whatever other appends queued beside
    /// it, waiting for its answer for `limit` at most.
    pub(crate) fn append(&self, limit: Duration, record: LeasedRecord) -> Result<i64, StoreError> {
        let (answer, answered) = sync_channel(1);
        let job = Job::Append(Append { record, answer });
        self.send(job, answered, limit, "append to a journal")
    }

    fn send<T>(
        &self,
        job: Job,
        answered: Receiver<Result<T, StoreError>>,
        limit: Duration,
        action: &'static str,
    ) -> Result<T, StoreError> {
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

/// A worker: takes the next job and runs it, a fenced append with the others queued behind
/// it, until every [`AppendPool`] is gone.
fn work(queue: &Mutex<Receiver<Job>>, mut connection: WorkerConnection) {
    let mut next = None;
    loop {
        let job = match next.take() {
            Some(job) => job,
            None => match queue.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        match job {
            Job::Call(call) => call(&mut connection),
            Job::Append(first) => {
                let (batch, after) = queued_with(first, queue);
                next = after;
                append_all(&mut connection, batch);
            }
        }
    }
}

/// `first` and the fenced appends queued behind it, one per journal; the job that ended the
/// batch, if one did. The queue is only tried: a worker waiting for a job holds it, and then
/// nothing is queued (waiting for it would wait for the next job, which may never come).
fn queued_with(first: Append, queue: &Mutex<Receiver<Job>>) -> (Vec<Append>, Option<Job>) {
    let mut batch = vec![first];
    let queue = match queue.try_lock() {
        Ok(queue) => queue,
        Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return (batch, None),
    };
    while batch.len() < MOST_IN_BATCH {
        match queue.try_recv() {
            Ok(Job::Append(append))
                if !batch.iter().any(|b| {
                    b.record.run_id == append.record.run_id
                        && b.record.journal == append.record.journal
                }) =>
            {
                batch.push(append);
            }
            Ok(other) => return (batch, Some(other)),
            Err(_) => break,
        }
    }
    (batch, None)
}

/// Sends `batch` as one statement and each append its answer.
fn append_all(connection: &mut WorkerConnection, mut batch: Vec<Append>) {
    batch.sort_by(|a, b| a.record.host.cmp(&b.record.host));
    let records: Vec<LeasedRecord> = batch.iter().map(|a| a.record.clone()).collect();
    match connection.run(|store| store.append_batch(&records)) {
        Ok(answers) => {
            for (append, answer) in batch.into_iter().zip(answers) {
                let _ = append.answer.send(answer);
            }
        }
        Err(error) => {
            let (others, lost) = (batch.len() - 1, error.is_lost());
            for append in batch {
                let _ = append.answer.send(Err(StoreError::Batch {
                    others,
                    reason: error.to_string(),
                    lost,
                }));
            }
        }
    }
}
