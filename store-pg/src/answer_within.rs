//! A store call that waits for its answer only so long: a store cut off without a broken
//! connection (a proxy or a pooler that stops forwarding and keeps the socket open, a server
//! hung) answers nothing and closes nothing, and a blocking client waits for ever; the
//! kernel's timeouts never fire while the socket's other end acknowledges. Past its session's
//! expiry a controller has nothing left to say to the store anyway: the store refuses it then.

use std::sync::mpsc::sync_channel;
use std::time::Duration;

/// Runs `call` on a thread of its own and waits for its answer for `limit`; `None` when none
/// came by then. The thread is left to finish, or to hang, on its own: what it would have
/// written is refused by the store once the session expired, or settled by a resume.
pub(crate) fn answer_within<T: Send + 'static>(
    limit: Duration,
    call: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (answer, answered) = sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("store-call".into())
        .spawn(move || {
            // The caller may have stopped waiting: nobody to tell then.
            let _ = answer.send(call());
        });
    if spawned.is_err() {
        return None;
    }
    // A call that panicked (its sender dropped) is no answer either.
    answered.recv_timeout(limit).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_in_time_is_returned_and_a_late_one_is_not_waited_for() {
        assert_eq!(answer_within(Duration::from_secs(5), || 7), Some(7));
        let started = std::time::Instant::now();
        let late = answer_within(Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_secs(2));
            7
        });
        assert_eq!(late, None);
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
