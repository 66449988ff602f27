//! Stage barriers and the fork limit, shared by every host thread of a run.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::{Cancel, Cancelled};

/// No host starts stage `k` before every host still in the run has reached it.
///
/// Hosts that finish or fail `leave`, and never hold the others.
#[derive(Debug)]
pub(crate) struct StageBarrier {
    state: Mutex<BarrierState>,
    wake: Condvar,
}

#[derive(Debug)]
struct BarrierState {
    arrived: BTreeMap<u64, usize>,
    live: usize,
    released: u64,
}

impl StageBarrier {
    /// A barrier for `participants` hosts.
    pub(crate) fn new(participants: usize) -> Self {
        Self {
            state: Mutex::new(BarrierState {
                arrived: BTreeMap::new(),
                live: participants,
                released: 0,
            }),
            wake: Condvar::new(),
        }
    }

    /// Waits until every live host has reached stage `index`.
    pub(crate) fn arrive(&self, index: u64, cancel: &Cancel) -> Result<(), Cancelled> {
        let Ok(mut state) = self.state.lock() else {
            return Err(Cancelled);
        };
        *state.arrived.entry(index).or_default() += 1;
        loop {
            if state.released >= index
                || state.arrived.get(&index).copied().unwrap_or(0) >= state.live
            {
                state.released = state.released.max(index);
                self.wake.notify_all();
                return Ok(());
            }
            cancel.check()?;
            state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                Ok((state, _)) => state,
                Err(_) => return Err(Cancelled),
            };
        }
    }

    /// A host leaves the run: the others stop waiting for it.
    pub(crate) fn leave(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.live = state.live.saturating_sub(1);
        }
        self.wake.notify_all();
    }

    /// Leaves when dropped, so that a host whose thread ends in any way (a panic too) does not
    /// keep the others waiting at the next barrier forever.
    pub(crate) fn departure(&self) -> Departure<'_> {
        Departure(self)
    }
}

/// A host's place at the barrier, given up when dropped.
#[derive(Debug)]
pub(crate) struct Departure<'a>(&'a StageBarrier);

impl Drop for Departure<'_> {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// At most `N` hosts act at once; a host waiting at a barrier or for a reboot gives its slot up.
#[derive(Debug)]
pub(crate) struct Forks {
    free: Mutex<usize>,
    wake: Condvar,
}

impl Forks {
    /// A limit of `forks` (at least one).
    pub(crate) fn new(forks: usize) -> Self {
        Self {
            free: Mutex::new(forks.max(1)),
            wake: Condvar::new(),
        }
    }

    /// Takes a slot, waiting for one.
    pub(crate) fn acquire(&self, cancel: &Cancel) -> Result<(), Cancelled> {
        let Ok(mut free) = self.free.lock() else {
            return Err(Cancelled);
        };
        while *free == 0 {
            cancel.check()?;
            free = match self.wake.wait_timeout(free, Duration::from_millis(100)) {
                Ok((free, _)) => free,
                Err(_) => return Err(Cancelled),
            };
        }
        *free -= 1;
        Ok(())
    }

    /// Gives a slot back.
    pub(crate) fn release(&self) {
        if let Ok(mut free) = self.free.lock() {
            *free += 1;
        }
        self.wake.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_host_that_leaves_does_not_hold_the_others() {
        let barrier = Arc::new(StageBarrier::new(3));
        let cancel = Cancel::default();
        let waiters: Vec<_> = (0..2)
            .map(|_| {
                let (barrier, cancel) = (barrier.clone(), cancel.clone());
                std::thread::spawn(move || barrier.arrive(1, &cancel))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(50));
        barrier.leave();
        for waiter in waiters {
            assert_eq!(waiter.join().ok(), Some(Ok(())));
        }
    }

    #[test]
    fn a_host_whose_thread_panics_does_not_hold_the_others() {
        let barrier = Arc::new(StageBarrier::new(2));
        let cancel = Cancel::default();
        let panicking = barrier.clone();
        let crashed = std::thread::spawn(move || {
            let _departure = panicking.departure();
            panic!("a builtin panicked");
        });
        assert!(crashed.join().is_err());
        assert_eq!(barrier.arrive(1, &cancel), Ok(()));
    }

    #[test]
    fn cancel_ends_a_wait() {
        let barrier = StageBarrier::new(2);
        let cancel = Cancel::default();
        cancel.cancel();
        assert_eq!(barrier.arrive(1, &cancel), Err(Cancelled));
    }
}
