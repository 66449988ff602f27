//! Keeping two cross-host tests off one host. A test between two hosts (perftest, sockperf)
//! holds both for its span: a second server on the port, or its leftover cleanup, would stop the
//! first one's server. Both hosts are taken at once, so two tests that share a host run in turn
//! and never wait in a circle. The hold belongs to the run (`RunShared`), so two runs in one
//! process (the debugger's unit runs, the tests) never see each other's.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::{Cancel, Cancelled};

/// The hosts the run's tests hold, and a wake-up for the tests waiting for one of them.
#[derive(Debug, Default)]
pub(crate) struct PairHolds {
    held: Mutex<BTreeSet<String>>,
    freed: Condvar,
}

/// Two hosts held for one test, given back when dropped.
#[derive(Debug)]
pub struct PairHold<'a> {
    holds: &'a PairHolds,
    hosts: Vec<String>,
}

impl PairHolds {
    /// A poisoned set (a panic while it was locked) holds nothing half-written: it is taken
    /// over.
    fn held(&self) -> MutexGuard<'_, BTreeSet<String>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds `a` and `b`, waiting while another test holds either, until `cancel` stops the
    /// run. Check mode runs no test on any host, so it holds nothing.
    pub(crate) fn hold(
        &self,
        a: &str,
        b: &str,
        check: bool,
        cancel: &Cancel,
    ) -> Result<PairHold<'_>, Cancelled> {
        let hosts = if check {
            Vec::new()
        } else {
            vec![a.to_owned(), b.to_owned()]
        };
        let mut held = self.held();
        loop {
            if hosts.iter().all(|host| !held.contains(host)) {
                held.extend(hosts.iter().cloned());
                return Ok(PairHold { holds: self, hosts });
            }
            cancel.check()?;
            // A stop does not wake the condition variable: look at the cancel now and then.
            held = match self.freed.wait_timeout(held, Duration::from_millis(100)) {
                Ok((held, _)) => held,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for PairHold<'_> {
    fn drop(&mut self) {
        if self.hosts.is_empty() {
            return;
        }
        let mut held = self.holds.held();
        for host in &self.hosts {
            held.remove(host);
        }
        self.holds.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    #[test]
    fn a_test_sharing_a_host_waits_until_the_first_one_ends() {
        let holds = Arc::new(PairHolds::default());
        let cancel = Cancel::default();
        let first = holds.hold("a", "b", false, &cancel);
        assert!(first.is_ok());
        let second_done = Arc::new(AtomicBool::new(false));
        let waiter = {
            let (holds, cancel, done) = (holds.clone(), cancel.clone(), second_done.clone());
            std::thread::spawn(move || {
                let held = holds.hold("b", "c", false, &cancel).is_ok();
                done.store(true, Ordering::SeqCst);
                held
            })
        };
        // Another pair of hosts is not held up.
        assert!(holds.hold("c", "d", false, &cancel).is_ok());
        std::thread::sleep(Duration::from_millis(150));
        assert!(!second_done.load(Ordering::SeqCst), "b is still held");
        drop(first);
        assert_eq!(waiter.join().ok(), Some(true));
    }

    #[test]
    fn a_stopped_run_ends_the_wait_and_check_mode_holds_nothing() {
        let holds = PairHolds::default();
        let cancel = Cancel::default();
        let _first = holds.hold("a", "b", false, &cancel);
        assert!(holds.hold("b", "a", true, &cancel).is_ok(), "check mode");
        cancel.cancel();
        assert_eq!(holds.hold("a", "c", false, &cancel).err(), Some(Cancelled));
    }
}
