//! Renewing a session in the background, on a connection of its own.

use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::{PgStore, Session, StoreError, StoreUrl};

/// A thread renewing a session every `interval` until dropped or until the session expired.
///
/// It has its own connection, so that a long journal append or a host's slow call does not
/// delay a renewal. A renewal that fails on a lost connection reconnects at the next tick; one
/// that finds the session expired stops (the controller then passes its deadline and stops
/// acting: an expired session is never brought back).
#[derive(Debug)]
pub struct Heartbeat {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<Option<StoreError>>>,
}

impl Heartbeat {
    /// Starts renewing `session` on a new connection to `url`.
    pub fn start(
        url: &StoreUrl,
        session: &Session,
        interval: Duration,
    ) -> Result<Self, StoreError> {
        // The session was opened on a connection that checked the schema.
        let mut store = PgStore::connect_checked(url)?;
        let id = session.id();
        let session = session.clone();
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::Builder::new()
            .name(format!("heartbeat-{}", session.id()))
            .spawn(move || {
                loop {
                    match stopped.recv_timeout(interval) {
                        Err(RecvTimeoutError::Timeout) => {}
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => return None,
                    }
                    match store.renew(&session) {
                        Ok(()) => {}
                        Err(error @ StoreError::SessionExpired { .. }) => return Some(error),
                        Err(error) if error.is_lost() => {
                            let _ = store.reconnect();
                        }
                        Err(_) => {}
                    }
                }
            })
            // A thread that cannot be started leaves the session unrenewed: as good as expired.
            .map_err(|_| StoreError::SessionExpired { session: id })?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Stops renewing; returns why it had stopped on its own (the session expired), if so.
    pub fn stop(mut self) -> Option<StoreError> {
        self.stop.take();
        self.thread.take().and_then(join_unless_stuck).flatten()
    }
}

/// How long stopping waits for a renewal in flight to come back.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// The thread's result once it ended, waiting [`STOP_WAIT`] at most: a renewal stuck on a
/// store that answers nothing never returns, and the controller must still end.
fn join_unless_stuck<T>(thread: JoinHandle<T>) -> Option<T> {
    let waited = std::time::Instant::now();
    while !thread.is_finished() {
        if waited.elapsed() > STOP_WAIT {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    thread.join().ok()
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(thread) = self.thread.take() {
            let _ = join_unless_stuck(thread);
        }
    }
}
