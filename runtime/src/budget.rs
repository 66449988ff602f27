//! The run-wide disruption budget, `--max-unavailable N|P%`: at most that many hosts are
//! unavailable at once, where unavailable means really down: declared so by the runbook
//! (`unavailable()`, from the first step that takes its service away until `available()`),
//! rebooting, in maintenance mode, or failed while down (as NVIDIA's Maintenance Operator counts
//! hosts already down). A host that waits for room, or failed while up, is not down. The
//! budget records who is down with or without a limit, so a halted roll (`halt.rs`) refuses
//! new disruptions and a run's end can say what it left down.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::halt::Halt;
use crate::{ActionError, Cancel};

/// `--max-unavailable`: a host count, or a percentage of the run's hosts (rounded down, at
/// least one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MaxUnavailable {
    /// At most this many hosts (at least one).
    Hosts(usize),
    /// This percentage of the run's hosts.
    Percent(u8),
}

impl MaxUnavailable {
    /// Reads `4` or `"25%"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if let Some(percent) = text.strip_suffix('%') {
            return match percent.trim().parse::<u8>() {
                Ok(p @ 1..=100) => Ok(Self::Percent(p)),
                _ => Err(format!("`{text}`: a percentage from 1% to 100%")),
            };
        }
        match text.parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Self::Hosts(n)),
            _ => Err(format!(
                "`{text}`: a host count (1 or more) or a percentage like 25%"
            )),
        }
    }

    /// How many of `hosts` may be unavailable at once.
    pub fn limit(self, hosts: usize) -> usize {
        match self {
            Self::Hosts(n) => n.max(1),
            Self::Percent(p) => (usize::from(p) * hosts / 100).max(1),
        }
    }
}

/// Why a host holds a place in the budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Holding {
    declared: bool,
    rebooting: bool,
    maintenance: bool,
    failed: bool,
}

impl Holding {
    fn holds(self) -> bool {
        self.declared || self.rebooting || self.maintenance || self.failed
    }

    fn reason(self) -> &'static str {
        if self.failed {
            "failed"
        } else if self.rebooting {
            "rebooting"
        } else if self.maintenance {
            "maintenance"
        } else {
            "unavailable"
        }
    }
}

/// What makes a host unavailable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disruption {
    /// Declared by the runbook: `unavailable()` until `available()`.
    Declared,
    /// `reboot()`.
    Reboot,
    /// Maintenance mode.
    Maintenance,
}

/// The budget, shared by the hosts of a run.
#[derive(Debug, Default)]
pub struct DisruptionBudget {
    limit: Option<usize>,
    state: Mutex<BudgetState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct BudgetState {
    holders: BTreeMap<String, Holding>,
    /// Hosts that left the run: what they hold is never given back in this run.
    gone: std::collections::BTreeSet<String>,
    /// Hosts waiting at a stage barrier or for their batch, at that place's position.
    parked: BTreeMap<String, u64>,
    /// The position each host last passed.
    passed: BTreeMap<String, u64>,
}

/// Where a host waits for the others, in the order a run passes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// At the barrier before the stage of this index: it opens once every host still in the
    /// run has reached it.
    Barrier(u64),
    /// For its batch of the rolling stage of this index: it opens once the batches before it
    /// are through the block.
    Batch(u64),
}

impl Wait {
    /// The barrier of stage k is passed before its batches, which are waited for after the
    /// block of the batch before has begun: 3k, then a batch turn at 3k + 2, passed at 3k + 1
    /// (the block), so that a host in the block of stage k is behind every batch still waiting
    /// in it and past the barrier it came through.
    fn parked_at(self) -> u64 {
        match self {
            Self::Barrier(k) => k.saturating_mul(3),
            Self::Batch(k) => k.saturating_mul(3).saturating_add(2),
        }
    }

    fn passed_at(self) -> u64 {
        match self {
            Self::Barrier(k) => k.saturating_mul(3),
            Self::Batch(k) => k.saturating_mul(3).saturating_add(1),
        }
    }

    fn describe(position: u64) -> String {
        let stage = position / 3;
        if position % 3 == 2 {
            format!("for their batch of stage {stage}")
        } else {
            format!("at the start of stage {stage}")
        }
    }
}

/// The hosts that hold the budget, for a wait's message and record.
pub(crate) type Holders = Vec<(String, String)>;

impl DisruptionBudget {
    /// A budget of `limit` hosts (`None`: no budget).
    pub fn new(limit: Option<usize>) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// How many hosts may be unavailable at once, if there is a budget.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// Takes a place for `host` (none more if it holds one already), waiting for room.
    /// `waiting` is called once, with who holds the budget, if it has to wait. Fails when every
    /// holder has left the run, so nothing would ever give a place back; stops (`Cancelled`)
    /// a host that is up once the roll is halted.
    pub fn acquire(
        &self,
        host: &str,
        why: Disruption,
        halt: &Halt,
        cancel: &Cancel,
        mut waiting: impl FnMut(usize, &Holders),
    ) -> Result<(), ActionError> {
        let Ok(mut state) = self.state.lock() else {
            return Err(crate::Cancelled.into());
        };
        let limit = self.limit.unwrap_or(usize::MAX);
        let mut told = false;
        loop {
            let mine = state.holders.get(host).copied().unwrap_or_default();
            if !mine.holds() {
                halt.check()?;
            }
            let held = state.holders.values().filter(|h| h.holds()).count();
            if mine.holds() || held < limit {
                let entry = state.holders.entry(host.to_owned()).or_default();
                match why {
                    Disruption::Declared => entry.declared = true,
                    Disruption::Reboot => entry.rebooting = true,
                    Disruption::Maintenance => entry.maintenance = true,
                }
                return Ok(());
            }
            let holders: Holders = state
                .holders
                .iter()
                .filter(|(_, h)| h.holds())
                .map(|(name, h)| (name.clone(), h.reason().to_owned()))
                .collect();
            if holders.iter().all(|(name, _)| state.gone.contains(name)) {
                return Err(ActionError::Failed(format!(
                    "--max-unavailable {limit}: {} unavailable, held by hosts that left the run ({}): nothing will give a place back",
                    holders.len(),
                    describe(&holders)
                )));
            }
            if let Some(waits) = deadlock(&state, host, &holders) {
                return Err(ActionError::Failed(format!(
                    "--max-unavailable {limit}: {host} waits for a place held by {} while they wait {waits} for {host}: none gives its place back before {host} gets one (a deadlock). Leave maintenance mode in the stage that entered it, or raise --max-unavailable",
                    describe(&holders)
                )));
            }
            if !told {
                waiting(limit, &holders);
                told = true;
            }
            cancel.check()?;
            state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                Ok((state, _)) => state,
                Err(_) => return Err(crate::Cancelled.into()),
            };
        }
    }

    /// `host` is available again as far as `why` goes.
    pub fn release(&self, host: &str, why: Disruption) {
        if let Ok(mut state) = self.state.lock()
            && let Some(entry) = state.holders.get_mut(host)
        {
            match why {
                Disruption::Declared => entry.declared = false,
                Disruption::Reboot => entry.rebooting = false,
                Disruption::Maintenance => entry.maintenance = false,
            }
        }
        self.wake.notify_all();
    }

    /// `host` failed: if it was down, it stays unavailable for the rest of the run; a host
    /// that failed while up took nothing away and holds no place.
    pub fn fail(&self, host: &str) {
        if let Ok(mut state) = self.state.lock()
            && let Some(entry) = state.holders.get_mut(host)
            && entry.holds()
        {
            entry.failed = true;
        }
        self.wake.notify_all();
    }

    /// Whether `host` is down as far as the budget knows.
    pub fn holds(&self, host: &str) -> bool {
        self.state
            .lock()
            .is_ok_and(|state| state.holders.get(host).is_some_and(|h| h.holds()))
    }

    /// The hosts down now and why (`esx02 maintenance`), in name order.
    pub fn down(&self) -> Holders {
        self.state.lock().map_or_else(
            |_| Vec::new(),
            |state| {
                state
                    .holders
                    .iter()
                    .filter(|(_, h)| h.holds())
                    .map(|(name, h)| (name.clone(), h.reason().to_owned()))
                    .collect()
            },
        )
    }

    /// `host` left the run, holding what it holds.
    pub fn leave(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state.gone.insert(host.to_owned());
        }
        self.wake.notify_all();
    }

    /// `host` waits for the others at `wait` (it holds what it holds meanwhile).
    pub fn park(&self, host: &str, wait: Wait) {
        if let Ok(mut state) = self.state.lock() {
            state.parked.insert(host.to_owned(), wait.parked_at());
        }
    }

    /// `host` is through `wait`.
    pub fn unpark(&self, host: &str, wait: Wait) {
        if let Ok(mut state) = self.state.lock() {
            state.parked.remove(host);
            state.passed.insert(host.to_owned(), wait.passed_at());
        }
    }

    /// On a resume: `host` was declared down by the journal's part of its runbook.
    pub fn resume_down(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state.holders.entry(host.to_owned()).or_default().declared = true;
        }
    }

    /// On a resume: `host` is in maintenance mode, as its journal says it was left.
    pub fn resume_in_maintenance(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state
                .holders
                .entry(host.to_owned())
                .or_default()
                .maintenance = true;
        }
    }
}

/// Where the holders wait, when every one of them (those that left aside) waits at a place
/// that opens only after `host`, which is not there, gets through: a barrier or a batch turn
/// further on than the last place `host` passed. A holder parked at a place `host` has passed
/// already is only waking up, and is not counted.
fn deadlock(state: &BudgetState, host: &str, holders: &Holders) -> Option<String> {
    let mine = state.passed.get(host).copied().unwrap_or(0);
    let mut waits = std::collections::BTreeSet::new();
    for (name, _) in holders {
        if name == host || state.gone.contains(name) {
            continue;
        }
        match state.parked.get(name) {
            Some(&at) if at > mine => {
                waits.insert(Wait::describe(at));
            }
            _ => return None,
        }
    }
    if waits.is_empty() {
        return None;
    }
    Some(waits.into_iter().collect::<Vec<_>>().join(" and "))
}

/// `esx01 rebooting, esx02 maintenance`.
pub(crate) fn describe(holders: &Holders) -> String {
    holders
        .iter()
        .map(|(host, why)| format!("{host} {why}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A roll never halted.
    static UP: Halt = Halt::new();

    #[test]
    fn values_parse_as_counts_or_percentages() {
        assert_eq!(MaxUnavailable::parse("4"), Ok(MaxUnavailable::Hosts(4)));
        assert_eq!(
            MaxUnavailable::parse("25%"),
            Ok(MaxUnavailable::Percent(25))
        );
        assert_eq!(MaxUnavailable::Percent(25).limit(64), 16);
        assert_eq!(MaxUnavailable::Percent(1).limit(8), 1);
        for bad in ["0", "-1", "0%", "101%", "four"] {
            assert!(MaxUnavailable::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_host_in_maintenance_reboots_on_its_own_place_and_failed_hosts_count() {
        let budget = DisruptionBudget::new(Some(1));
        let cancel = Cancel::default();
        let never = |_: usize, _: &Holders| panic!("should not wait");
        assert!(
            budget
                .acquire("esx01", Disruption::Maintenance, &UP, &cancel, never)
                .is_ok()
        );
        assert!(
            budget
                .acquire("esx01", Disruption::Reboot, &UP, &cancel, never)
                .is_ok()
        );
        budget.release("esx01", Disruption::Reboot);
        budget.fail("esx01");
        budget.fail("esx03");
        assert!(
            !budget.holds("esx03"),
            "a host that failed while up holds no place"
        );
        budget.release("esx01", Disruption::Maintenance);
        budget.leave("esx01");
        let mut seen = Vec::new();
        let refused = budget.acquire("esx02", Disruption::Reboot, &UP, &cancel, |_, h| {
            seen = h.clone()
        });
        assert!(
            refused.is_err(),
            "a failed host that left holds its place for good"
        );
    }

    #[test]
    fn holders_waiting_at_a_later_barrier_for_the_waiter_are_a_deadlock_not_a_wait() {
        let budget = DisruptionBudget::new(Some(1));
        let cancel = Cancel::default();
        for host in ["esx01", "esx02"] {
            budget.unpark(host, Wait::Barrier(1));
        }
        let never = |_: usize, _: &Holders| panic!("should not wait");
        assert!(
            budget
                .acquire("esx01", Disruption::Maintenance, &UP, &cancel, never)
                .is_ok()
        );
        budget.park("esx01", Wait::Barrier(2));
        let refused = budget.acquire("esx02", Disruption::Maintenance, &UP, &cancel, |_, _| {});
        let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("a deadlock"), "{message}");
        assert!(
            message.contains("esx01 maintenance while they wait at the start of stage 2"),
            "{message}"
        );
    }

    #[test]
    fn a_holder_still_waking_from_a_barrier_the_waiter_passed_is_waited_for() {
        let budget = std::sync::Arc::new(DisruptionBudget::new(Some(1)));
        let cancel = Cancel::default();
        budget.unpark("esx02", Wait::Barrier(2));
        assert!(
            budget
                .acquire("esx01", Disruption::Reboot, &UP, &cancel, |_, _| {})
                .is_ok()
        );
        budget.park("esx01", Wait::Barrier(2));
        let waiter = {
            let (budget, cancel) = (budget.clone(), cancel.clone());
            std::thread::spawn(move || {
                budget.acquire("esx02", Disruption::Reboot, &UP, &cancel, |_, _| {})
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        assert!(!waiter.is_finished(), "esx02 must wait, not fail");
        budget.unpark("esx01", Wait::Barrier(2));
        budget.release("esx01", Disruption::Reboot);
        assert!(matches!(waiter.join(), Ok(Ok(()))));
    }

    #[test]
    fn a_holder_waiting_for_its_batch_behind_the_waiter_is_a_deadlock() {
        let budget = DisruptionBudget::new(Some(1));
        let cancel = Cancel::default();
        assert!(
            budget
                .acquire("esx02", Disruption::Maintenance, &UP, &cancel, |_, _| {})
                .is_ok()
        );
        budget.park("esx02", Wait::Batch(3));
        budget.unpark("esx01", Wait::Batch(3));
        let refused = budget.acquire("esx01", Disruption::Reboot, &UP, &cancel, |_, _| {});
        let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("for their batch of stage 3"), "{message}");
    }

    #[test]
    fn a_halted_roll_lets_a_host_already_down_go_on_and_stops_a_host_still_up() {
        let budget = DisruptionBudget::new(None);
        let (halt, cancel) = (Halt::new(), Cancel::default());
        let fine = |_: usize, _: &Holders| {};
        assert!(
            budget
                .acquire("esx01", Disruption::Declared, &halt, &cancel, fine)
                .is_ok()
        );
        halt.halt("esx02 failed".into());
        assert!(
            budget
                .acquire("esx01", Disruption::Reboot, &halt, &cancel, fine)
                .is_ok(),
            "esx01 is down already and must come back"
        );
        let stopped = budget.acquire("esx03", Disruption::Maintenance, &halt, &cancel, fine);
        assert!(
            matches!(stopped, Err(ActionError::Cancelled(_))),
            "{stopped:?}"
        );
        assert_eq!(budget.down(), vec![("esx01".into(), "rebooting".into())]);
    }
}
