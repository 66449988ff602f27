//! Reaching other hosts of the run from inside an action, and keeping two tests off one host.
//!
//! A host's transport is locked per command (`HostIo`), so an action that runs commands on
//! another host never waits for that host's whole action, and two hosts' actions that need each
//! other cannot wait for each other forever. What must not overlap is two *tests* on one host (a
//! second server on the port, or its leftover cleanup, would stop the first one's server): a
//! test holds both of its hosts for its span, taking the two at once, so two tests that share a
//! host run in turn and never wait in a circle.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Duration;

use cairn_runtime::{ActionError, RunShared, Transport};

/// The hosts a test holds, per run: (run, host).
static HELD: Mutex<BTreeSet<(usize, String)>> = Mutex::new(BTreeSet::new());

/// The transport of `peer`, locked for one command.
pub(crate) fn lock<'a>(
    shared: &'a RunShared,
    peer: &str,
) -> Result<MutexGuard<'a, Box<dyn Transport>>, ActionError> {
    let transport = shared
        .transports
        .get(peer)
        .ok_or_else(|| ActionError::Failed(format!("`{peer}` is not a host of this run")))?;
    let mut pause = Duration::from_millis(2);
    loop {
        match transport.try_lock() {
            Ok(guard) => return Ok(guard),
            Err(TryLockError::Poisoned(poisoned)) => return Ok(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => {}
        }
        shared.cancel.check()?;
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Both hosts of a test, held until dropped.
pub(crate) struct PairHold {
    keys: [(usize, String); 2],
}

impl Drop for PairHold {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        for key in &self.keys {
            held.remove(key);
        }
    }
}

/// Holds hosts `a` and `b` for a test, waiting (cancellably) while another test of the run holds
/// either of them.
pub(crate) fn hold_pair(shared: &RunShared, a: &str, b: &str) -> Result<PairHold, ActionError> {
    let run = std::ptr::from_ref(shared) as usize;
    let keys = [(run, a.to_owned()), (run, b.to_owned())];
    let mut pause = Duration::from_millis(2);
    loop {
        {
            let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
            if keys.iter().all(|key| !held.contains(key)) {
                held.extend(keys.iter().cloned());
                return Ok(PairHold { keys });
            }
        }
        shared.cancel.check()?;
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}
