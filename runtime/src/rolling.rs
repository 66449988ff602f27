//! Rolling stages: `stage "NAME" on GROUP serial N { }` runs the block on the hosts of GROUP in
//! batches of at most N, in inventory order; a batch starts when every host of the one before it
//! has finished the block, failed, or left the run (Ansible's `serial`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::halt::Halt;
use crate::{Cancel, Cancelled};

/// The size of a stage's batches, as written after `serial`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serial {
    /// At most this many hosts per batch; 0 runs every host at once, as a plain stage does.
    Hosts(usize),
    /// This percentage of the stage's hosts per batch, rounded down, at least one: Ansible's
    /// `pct_to_int` (lib/ansible/utils/helpers.py: `int(pct / 100 * n) or 1`).
    Percent(u8),
}

impl Serial {
    /// Reads `serial`'s value: a non-negative integer, or a string holding one or `"P%"` with P
    /// in 1..=100.
    pub fn parse(value: &rhai::Dynamic) -> Result<Self, String> {
        if let Some(n) = value.clone().try_cast::<i64>() {
            return usize::try_from(n).map(Self::Hosts).map_err(|_| {
                format!("`serial {n}`: a batch size is a host count (0 or more) or a percentage like \"25%\"")
            });
        }
        if let Some(text) = value.clone().try_cast::<rhai::ImmutableString>() {
            // A param that takes a count or a percentage is a string: `"2"` is a count.
            if let Ok(n) = text.trim().parse::<usize>() {
                return Ok(Self::Hosts(n));
            }
            let percent = text
                .trim()
                .strip_suffix('%')
                .and_then(|p| p.trim().parse::<u8>().ok())
                .filter(|p| (1..=100).contains(p));
            return percent.map(Self::Percent).ok_or_else(|| {
                format!(
                    "`serial \"{text}\"`: expected a percentage from \"1%\" to \"100%\", or a host count like `serial 2`"
                )
            });
        }
        Err(format!(
            "`serial` takes a host count or a percentage string like \"25%\", not {}",
            value.type_name()
        ))
    }

    /// The batch size for a stage of `members` hosts (0: all at once).
    pub fn batch_size(self, members: usize) -> usize {
        match self {
            Self::Hosts(0) => members.max(1),
            Self::Hosts(n) => n,
            Self::Percent(p) => (usize::from(p) * members / 100).max(1),
        }
    }
}

/// `members` cut into batches of `size`, in order; the last holds the remainder.
pub(crate) fn batches(members: &[String], size: usize) -> Vec<Vec<String>> {
    members
        .chunks(size.max(1))
        .map(<[String]>::to_vec)
        .collect()
}

/// Where batches stand, shared by every host thread of a run.
#[derive(Debug, Default)]
pub struct RollingGate {
    state: Mutex<GateState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    /// Hosts that finished the block of a stage (by stage index), failed ones too.
    finished: BTreeMap<u64, BTreeSet<String>>,
    /// Hosts that failed in the block of a stage, by stage index.
    failed: BTreeMap<u64, BTreeSet<String>>,
    /// Hosts that left the run: no batch waits for them.
    gone: BTreeSet<String>,
    /// Batches already announced, by stage index, so a batch is shown once.
    announced: BTreeSet<(u64, usize)>,
}

impl RollingGate {
    /// Waits until every host of the batches before `batch` (0-based) of stage `index` has
    /// finished its block or left the run. Returns whether this call is the first to open
    /// `batch`, so that it is announced once.
    pub fn wait_turn(
        &self,
        index: u64,
        batch: usize,
        all: &[Vec<String>],
        halt: &Halt,
        cancel: &Cancel,
    ) -> Result<bool, Cancelled> {
        let Ok(mut state) = self.state.lock() else {
            return Err(Cancelled);
        };
        loop {
            // A stop (a batch over `--max-fail-percent`, a halted roll) is seen before the
            // batch opens.
            cancel.check()?;
            halt.check()?;
            let finished = state.finished.get(&index);
            let open = all.iter().take(batch).flatten().all(|host| {
                state.gone.contains(host) || finished.is_some_and(|f| f.contains(host))
            });
            if open {
                return Ok(state.announced.insert((index, batch)));
            }
            state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                Ok((state, _)) => state,
                Err(_) => return Err(Cancelled),
            };
        }
    }

    /// `host` failed the block of stage `index`. Returns how many hosts of `batch` have failed
    /// in this stage so far. Called before [`Self::finish`], so that a stop it leads to is
    /// seen by the next batch before that batch may open.
    pub fn fail(&self, index: u64, host: &str, batch: &[String]) -> usize {
        let Ok(mut state) = self.state.lock() else {
            return 0;
        };
        let failures = state.failed.entry(index).or_default();
        failures.insert(host.to_owned());
        batch.iter().filter(|h| failures.contains(*h)).count()
    }

    /// `host` finished the block of stage `index` (or failed it).
    pub fn finish(&self, index: u64, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state
                .finished
                .entry(index)
                .or_default()
                .insert(host.to_owned());
        }
        self.wake.notify_all();
    }

    /// `host` left the run: later batches stop waiting for it.
    pub fn leave(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state.gone.insert(host.to_owned());
        }
        self.wake.notify_all();
    }

    /// Leaves when dropped, so a host whose thread ends in any way never holds a batch.
    pub fn departure<'a>(&'a self, host: &str) -> RollingDeparture<'a> {
        RollingDeparture {
            gate: self,
            host: host.to_owned(),
        }
    }
}

/// A host's place in the batches, given up when dropped.
#[derive(Debug)]
pub struct RollingDeparture<'a> {
    gate: &'a RollingGate,
    host: String,
}

impl Drop for RollingDeparture<'_> {
    fn drop(&mut self) {
        self.gate.leave(&self.host);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("esx{i:02}")).collect()
    }

    #[test]
    fn percentages_round_down_to_at_least_one_host() {
        assert_eq!(Serial::Percent(25).batch_size(10), 2);
        assert_eq!(Serial::Percent(25).batch_size(3), 1);
        assert_eq!(Serial::Percent(100).batch_size(7), 7);
        assert_eq!(Serial::Hosts(0).batch_size(5), 5);
    }

    #[test]
    fn the_last_batch_holds_the_remainder() {
        let cut = batches(&names(5), 2);
        assert_eq!(cut.len(), 3);
        assert_eq!(cut[2], vec!["esx05".to_owned()]);
    }

    #[test]
    fn bad_serial_values_are_refused() {
        for bad in [
            rhai::Dynamic::from(-1_i64),
            "0%".into(),
            "150%".into(),
            "two".into(),
        ] {
            assert!(Serial::parse(&bad).is_err(), "{bad:?}");
        }
        assert_eq!(Serial::parse(&"25%".into()), Ok(Serial::Percent(25)));
        assert_eq!(Serial::parse(&"2".into()), Ok(Serial::Hosts(2)));
        assert_eq!(
            Serial::parse(&rhai::Dynamic::from(3_i64)),
            Ok(Serial::Hosts(3))
        );
    }

    #[test]
    fn a_batch_waits_for_the_one_before_and_not_for_hosts_that_left() {
        let gate = Arc::new(RollingGate::default());
        let all = batches(&names(3), 1);
        let cancel = Cancel::default();
        let halt = Arc::new(Halt::new());
        assert_eq!(gate.wait_turn(1, 0, &all, &halt, &cancel), Ok(true));
        let waiter = {
            let (gate, all, cancel, halt) =
                (gate.clone(), all.clone(), cancel.clone(), halt.clone());
            std::thread::spawn(move || gate.wait_turn(1, 2, &all, &halt, &cancel))
        };
        gate.finish(1, "esx01");
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !waiter.is_finished(),
            "batch 3 started before batch 2 finished"
        );
        gate.leave("esx02");
        assert_eq!(waiter.join().ok(), Some(Ok(true)));
    }

    #[test]
    fn a_halted_roll_opens_no_further_batch() {
        let gate = RollingGate::default();
        let all = batches(&names(2), 1);
        let (halt, cancel) = (Halt::new(), Cancel::default());
        gate.finish(1, "esx01");
        halt.halt("esx01 failed".into());
        assert_eq!(gate.wait_turn(1, 1, &all, &halt, &cancel), Err(Cancelled));
    }
}
