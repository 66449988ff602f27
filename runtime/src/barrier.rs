//! Stage barriers and the fork limit, shared by every host thread of a run.
//!
//! In a share of a shared run (`fleet.rs`), the barrier also waits for the shared store to say
//! every other share is there.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::{Cancel, Cancelled, FleetSync};

/// How often a share whose hosts are all at a barrier asks the store whether the other
/// shares' are too (`fleet.rs`).
const FLEET_POLL: Duration = Duration::from_millis(250);

/// No host starts stage `k` before every host still in the run has reached it.
///
/// Hosts that finish or fail `leave`, and never hold the others. In a run shared between
/// controllers the barrier spans every share: once this share's hosts are all there, one of
/// them waits for the store to say every other share's are too.
#[derive(Debug)]
pub(crate) struct StageBarrier {
    state: Mutex<BarrierState>,
    wake: Condvar,
    fleet: Option<FleetBarrier>,
}

/// What a barrier needs to span the shares of a shared run: the store, and how to tell the
/// operator once that it waits for them (a line naming what it waits for).
struct FleetBarrier {
    sync: Arc<dyn FleetSync>,
    tell: Box<dyn Fn(String) + Send + Sync>,
    run: String,
}

impl std::fmt::Debug for FleetBarrier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FleetBarrier")
            .field("sync", &self.sync)
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct BarrierState {
    arrived: BTreeMap<u64, usize>,
    live: usize,
    released: u64,
    /// The barrier a host of this share is asking the store about now.
    syncing: Option<u64>,
}

impl StageBarrier {
    /// A barrier for `participants` hosts.
    pub(crate) fn new(participants: usize) -> Self {
        Self {
            state: Mutex::new(BarrierState {
                arrived: BTreeMap::new(),
                live: participants,
                released: 0,
                syncing: None,
            }),
            wake: Condvar::new(),
            fleet: None,
        }
    }

    /// This barrier, spanning the other shares of shared run `run` through `sync`; `tell`
    /// says once that a stage waits for them.
    pub(crate) fn with_fleet(
        mut self,
        sync: Arc<dyn FleetSync>,
        tell: Box<dyn Fn(String) + Send + Sync>,
        run: String,
    ) -> Self {
        self.fleet = Some(FleetBarrier { sync, tell, run });
        self
    }

    /// Waits until every live host has reached stage `index`.
    pub(crate) fn arrive(&self, index: u64, cancel: &Cancel) -> Result<(), Cancelled> {
        let Ok(mut state) = self.state.lock() else {
            return Err(Cancelled);
        };
        *state.arrived.entry(index).or_default() += 1;
        loop {
            let here = state.arrived.get(&index).copied().unwrap_or(0) >= state.live;
            if state.released >= index || (here && self.fleet.is_none()) {
                state.released = state.released.max(index);
                self.wake.notify_all();
                return Ok(());
            }
            if here && state.syncing.is_none() {
                state.syncing = Some(index);
                drop(state);
                let synced = self.wait_for_fleet(index, cancel);
                state = self.state.lock().map_err(|_| Cancelled)?;
                state.syncing = None;
                if synced.is_ok() {
                    state.released = state.released.max(index);
                }
                self.wake.notify_all();
                synced?;
                continue;
            }
            cancel.check()?;
            state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                Ok((state, _)) => state,
                Err(_) => return Err(Cancelled),
            };
        }
    }

    /// Asks the store until every share still in the run has reached stage `index`, saying
    /// once that it waits (and for how many shares nobody joined yet); a store that fails is
    /// asked again (its failure stops the hosts' journals, and so the run).
    fn wait_for_fleet(&self, index: u64, cancel: &Cancel) -> Result<(), Cancelled> {
        let Some(fleet) = &self.fleet else {
            return Ok(());
        };
        let mut told = false;
        loop {
            let live = self.state.lock().map_err(|_| Cancelled)?.live;
            match fleet.sync.reached(index, live) {
                Ok(behind) if behind.shares == 0 => return Ok(()),
                Ok(behind) if !told => {
                    told = true;
                    let joined = match behind.unclaimed {
                        0 => String::new(),
                        n => format!(
                            " ({n} not joined yet: `cairn join --store URL {}` on another controller)",
                            fleet.run
                        ),
                    };
                    (fleet.tell)(format!(
                        "stage {index} waits for {} other share(s) of run {}{joined}",
                        behind.shares, fleet.run
                    ));
                }
                _ => {}
            }
            cancel.check()?;
            std::thread::sleep(FLEET_POLL);
        }
    }

    /// A host leaves the run: the others stop waiting for it.
    pub(crate) fn leave(&self) {
        let mut live = None;
        if let Ok(mut state) = self.state.lock() {
            state.live = state.live.saturating_sub(1);
            live = Some(state.live);
        }
        if let (Some(fleet), Some(live)) = (&self.fleet, live) {
            let _ = fleet.sync.live(live);
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

    /// `hosts` threads arriving at stage 1 of `barrier`.
    fn arriving(
        barrier: &Arc<StageBarrier>,
        cancel: &Cancel,
        hosts: usize,
    ) -> Vec<std::thread::JoinHandle<Result<(), Cancelled>>> {
        (0..hosts)
            .map(|_| {
                let (barrier, cancel) = (barrier.clone(), cancel.clone());
                std::thread::spawn(move || barrier.arrive(1, &cancel))
            })
            .collect()
    }

    #[test]
    fn a_host_that_leaves_does_not_hold_the_others() {
        let barrier = Arc::new(StageBarrier::new(3));
        let cancel = Cancel::default();
        let waiters = arriving(&barrier, &cancel, 2);
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

    /// A store whose other shares reach a stage when the test says so.
    #[derive(Debug, Default)]
    struct OtherShares {
        reached: std::sync::atomic::AtomicU64,
        asked: std::sync::atomic::AtomicUsize,
    }

    impl crate::FleetSync for OtherShares {
        fn reached(&self, stage: u64, _live: usize) -> Result<crate::Behind, String> {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let there = self.reached.load(std::sync::atomic::Ordering::SeqCst) >= stage;
            Ok(crate::Behind {
                shares: usize::from(!there),
                unclaimed: 0,
            })
        }
        fn live(&self, _live: usize) -> Result<(), String> {
            Ok(())
        }
        fn take_place(
            &self,
            _: &str,
            _: &[(String, usize)],
        ) -> Result<Option<Vec<String>>, String> {
            Ok(None)
        }
        fn give_place(&self, _: &str) -> Result<(), String> {
            Ok(())
        }
    }

    #[test]
    fn a_share_whose_hosts_are_all_there_waits_for_the_other_shares() {
        let others = Arc::new(OtherShares::default());
        let barrier =
            Arc::new(StageBarrier::new(2).with_fleet(others.clone(), Box::new(|_| {}), "r".into()));
        let cancel = Cancel::default();
        let waiters = arriving(&barrier, &cancel, 2);
        std::thread::sleep(Duration::from_millis(600));
        assert!(
            waiters.iter().all(|w| !w.is_finished()),
            "released before the others"
        );
        let asked = others.asked.load(std::sync::atomic::Ordering::SeqCst);
        assert!(
            (1..=4).contains(&asked),
            "one host asks, every 250 ms: {asked}"
        );
        others.reached.store(1, std::sync::atomic::Ordering::SeqCst);
        for waiter in waiters {
            assert_eq!(waiter.join().ok(), Some(Ok(())));
        }
    }

    #[test]
    fn cancel_ends_a_wait() {
        let barrier = StageBarrier::new(2);
        let cancel = Cancel::default();
        cancel.cancel();
        assert_eq!(barrier.arrive(1, &cancel), Err(Cancelled));
    }
}
