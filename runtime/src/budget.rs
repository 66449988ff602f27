//! The disruption budget, `--max-unavailable N|P%` or per group (`esxi=1,guests=2`, read in
//! `max_unavailable.rs`): at most that many hosts (of the run, or of the group) are
//! unavailable at once, where unavailable means really down: declared so by the runbook
//! (`unavailable()`, from the first step that takes its service away until `available()`),
//! rebooting, in maintenance mode, or failed while down (as NVIDIA's Maintenance Operator counts
//! hosts already down). A host that waits for room, or failed while up, is not down. The
//! budget records who is down with or without a limit, so a halted roll (`halt.rs`) refuses
//! new disruptions and a run's end can say what it left down.
//!
//! Each limit (the run's, each group's) has its pool; waits for room, and a wait that would
//! deadlock, are here too. `budget/fleet_places.rs`: a share's places taken in the shared store
//! too, and settled from its journals when it is taken over.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

mod fleet_places;

use crate::halt::Halt;
use crate::{ActionError, Budgets, Cancel, HostInfo};

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

impl Disruption {
    /// Its place in the budget's order of waiters (`budget_order.rs`): a window (declared, or
    /// maintenance mode) before a lone reboot.
    fn rank(self) -> u8 {
        match self {
            Self::Declared | Self::Maintenance => 0,
            Self::Reboot => 1,
        }
    }
}

/// The budget, shared by the hosts of a run: one pool per limit of `--max-unavailable`.
#[derive(Debug, Default)]
pub struct DisruptionBudget {
    pools: Vec<Pool>,
    state: Mutex<BudgetState>,
    wake: Condvar,
    /// In a run shared between controllers, the store that counts the other shares' hosts
    /// (`fleet.rs`): a place is taken there too before it is taken here.
    fleet: Option<std::sync::Arc<dyn crate::FleetSync>>,
}

/// One limit, over every host of the run or over one group's.
#[derive(Debug)]
struct Pool {
    /// The group, `None` for the whole run.
    group: Option<String>,
    /// Its hosts, `None` for every host.
    members: Option<std::collections::BTreeSet<String>>,
    limit: usize,
}

impl Pool {
    fn covers(&self, host: &str) -> bool {
        self.members.as_ref().is_none_or(|m| m.contains(host))
    }

    /// As messages name it: `--max-unavailable 2`, `--max-unavailable esxi=1`.
    fn label(&self) -> String {
        match &self.group {
            Some(group) => format!("{group}={}", self.limit),
            None => self.limit.to_string(),
        }
    }
}

/// The limit a host waits behind, for the wait's message and record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Full {
    /// The group whose limit is reached, `None` for the whole run's.
    pub(crate) group: Option<String>,
    /// The limit.
    pub(crate) limit: usize,
    /// Who holds its places and why.
    pub(crate) holders: Holders,
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
    /// Who waits for a place, in the order they get one.
    order: crate::budget_order::WaitOrder,
    /// Hosts that have room here and wait for a place held by another share of a shared run:
    /// not ahead of anyone here, since they cannot take a place now (the host whose share
    /// holds that place may be the one behind them, resuming its unfinished reboot).
    waiting_on_fleet: std::collections::BTreeSet<String>,
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
    /// A budget of `limit` hosts over the whole run (`None`: no budget).
    pub fn new(limit: Option<usize>) -> Self {
        Self {
            pools: limit
                .map(|limit| Pool {
                    group: None,
                    members: None,
                    limit,
                })
                .into_iter()
                .collect(),
            ..Self::default()
        }
    }

    /// The budget `--max-unavailable` gives `hosts`: a percentage counts the hosts it covers
    /// (the run's, or the group's among them).
    pub fn for_hosts(budgets: Option<&Budgets>, hosts: &[HostInfo]) -> Self {
        let Some(budgets) = budgets else {
            return Self::default();
        };
        let mut pools: Vec<Pool> = budgets
            .all
            .map(|all| Pool {
                group: None,
                members: None,
                limit: all.limit(hosts.len()),
            })
            .into_iter()
            .collect();
        for (group, limit) in &budgets.groups {
            let members: std::collections::BTreeSet<String> = hosts
                .iter()
                .filter(|h| h.groups.iter().any(|g| g == group))
                .map(|h| h.name.clone())
                .collect();
            pools.push(Pool {
                group: Some(group.clone()),
                limit: limit.limit(members.len()),
                members: Some(members),
            });
        }
        Self {
            pools,
            ..Self::default()
        }
    }

    /// This budget, counting the hosts the other shares of a shared run have down through
    /// `fleet` (its limits are to be the shared run's, from all its hosts).
    pub fn with_fleet(mut self, fleet: std::sync::Arc<dyn crate::FleetSync>) -> Self {
        self.fleet = Some(fleet);
        self
    }

    /// Whether any limit applies: a run under a budget is a roll (`halt.rs`).
    pub fn is_limited(&self) -> bool {
        !self.pools.is_empty()
    }

    /// The pools that cover `host` and are full without it, first the run's, then the groups'
    /// in the order given.
    fn full_for<'a>(&'a self, state: &BudgetState, host: &str) -> Option<&'a Pool> {
        self.pools.iter().filter(|p| p.covers(host)).find(|pool| {
            let held = state
                .holders
                .iter()
                .filter(|(name, h)| h.holds() && pool.covers(name))
                .count();
            held >= pool.limit
        })
    }

    /// Takes a place for `host` (none more if it holds one already), waiting for room.
    /// `waiting` is called once, with who holds the budget, if it has to wait. Fails when every
    /// holder has left the run, so nothing would ever give a place back; stops (`Cancelled`)
    /// a host that is up once the roll is halted.
    pub(crate) fn acquire(
        &self,
        host: &str,
        why: Disruption,
        halt: &Halt,
        cancel: &Cancel,
        mut waiting: impl FnMut(&Full),
    ) -> Result<(), ActionError> {
        let Ok(mut state) = self.state.lock() else {
            return Err(crate::Cancelled.into());
        };
        let mut told = false;
        let outcome = loop {
            let mine = state.holders.get(host).copied().unwrap_or_default();
            if !mine.holds()
                && let Err(halted) = halt.check()
            {
                break Err(halted.into());
            }
            let full = if mine.holds() {
                None
            } else {
                self.full_for(&state, host)
            };
            let Some(pool) = full else {
                // Room, unless a host ahead in the order (`budget_order.rs`) can take it now.
                let ahead = !mine.holds()
                    && state
                        .order
                        .ahead_of(host, why.rank(), |other| {
                            self.could_take(&state, other, host)
                        })
                        .is_some();
                let elsewhere = if ahead || mine.holds() {
                    None
                } else {
                    self.fleet_place(host)
                };
                if let Some(full) = elsewhere {
                    state.order.enter(host, why.rank());
                    state.waiting_on_fleet.insert(host.to_owned());
                    if !told {
                        waiting(&full);
                        told = true;
                    }
                    if let Err(cancelled) = cancel.check() {
                        break Err(cancelled.into());
                    }
                    drop(state);
                    std::thread::sleep(Duration::from_millis(250));
                    state = self.state.lock().map_err(|_| crate::Cancelled)?;
                    continue;
                }
                if !ahead {
                    hold(&mut state, host, why);
                    break Ok(());
                }
                state.order.enter(host, why.rank());
                if let Err(cancelled) = cancel.check() {
                    break Err(cancelled.into());
                }
                state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                    Ok((state, _)) => state,
                    Err(_) => return Err(crate::Cancelled.into()),
                };
                continue;
            };
            let holders = match waited_for(&state, host, pool) {
                Ok(holders) => holders,
                Err(hopeless) => break Err(hopeless),
            };
            state.order.enter(host, why.rank());
            if !told {
                waiting(&Full {
                    group: pool.group.clone(),
                    limit: pool.limit,
                    holders,
                });
                told = true;
            }
            if let Err(cancelled) = cancel.check() {
                break Err(cancelled.into());
            }
            state = match self.wake.wait_timeout(state, Duration::from_millis(100)) {
                Ok((state, _)) => state,
                Err(_) => return Err(crate::Cancelled.into()),
            };
        };
        // Whatever the end, `host` waits no more: a host behind it may go.
        state.order.leave(host);
        state.waiting_on_fleet.remove(host);
        drop(state);
        self.wake.notify_all();
        outcome
    }

    /// Whether `other`, waiting, would get a place now and shares a limit with `host` (across
    /// separate groups' limits, neither is ahead of the other).
    fn could_take(&self, state: &BudgetState, other: &str, host: &str) -> bool {
        self.pools.iter().any(|p| p.covers(other) && p.covers(host))
            && self.full_for(state, other).is_none()
            && !state.waiting_on_fleet.contains(other)
    }

    /// `host` is available again as far as `why` goes.
    pub fn release(&self, host: &str, why: Disruption) {
        // Up unless it still holds here for another reason: a host a share's resume found down
        // holds its place in the store only (`settle_fleet_places`), and gives it back here.
        let mut up = true;
        if let Ok(mut state) = self.state.lock()
            && let Some(entry) = state.holders.get_mut(host)
        {
            match why {
                Disruption::Declared => entry.declared = false,
                Disruption::Reboot => entry.rebooting = false,
                Disruption::Maintenance => entry.maintenance = false,
            }
            up = !entry.holds();
        }
        if up && let Some(fleet) = &self.fleet {
            let _ = fleet.give_place(host);
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
        self.force_fleet_place(host);
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

/// `host` holds a place for `why`.
fn hold(state: &mut BudgetState, host: &str, why: Disruption) {
    let entry = state.holders.entry(host.to_owned()).or_default();
    match why {
        Disruption::Declared => entry.declared = true,
        Disruption::Reboot => entry.rebooting = true,
        Disruption::Maintenance => entry.maintenance = true,
    }
}

/// The hosts that fill `pool`, which `host` waits for; or why no wait would end: every one of
/// them left the run, or they wait for `host` (a deadlock).
fn waited_for(state: &BudgetState, host: &str, pool: &Pool) -> Result<Holders, ActionError> {
    let label = pool.label();
    let holders: Holders = state
        .holders
        .iter()
        .filter(|(name, h)| h.holds() && pool.covers(name))
        .map(|(name, h)| (name.clone(), h.reason().to_owned()))
        .collect();
    if holders.iter().all(|(name, _)| state.gone.contains(name)) {
        return Err(ActionError::Failed(format!(
            "--max-unavailable {label}: {} unavailable, held by hosts that left the run ({}): nothing will give a place back",
            holders.len(),
            describe(&holders)
        )));
    }
    if let Some(waits) = deadlock(state, host, &holders) {
        return Err(ActionError::Failed(format!(
            "--max-unavailable {label}: {host} waits for a place held by {} while they wait {waits} for {host}: none gives its place back before {host} gets one (a deadlock). Leave maintenance mode in the stage that entered it, or raise --max-unavailable",
            describe(&holders)
        )));
    }
    Ok(holders)
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
    fn a_host_in_maintenance_reboots_on_its_own_place_and_failed_hosts_count() {
        let budget = DisruptionBudget::new(Some(1));
        let cancel = Cancel::default();
        let never = |_: &Full| panic!("should not wait");
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
        let refused = budget.acquire("esx02", Disruption::Reboot, &UP, &cancel, |full| {
            seen = full.holders.clone()
        });
        assert!(
            refused.is_err(),
            "a failed host that left holds its place for good"
        );
    }

    /// A shared run's store with one place, held by `holder` (another share's host).
    #[derive(Debug)]
    struct OnePlace(Mutex<String>);

    impl crate::FleetSync for OnePlace {
        fn reached(&self, _: u64, _: usize) -> Result<crate::fleet::Behind, String> {
            Ok(crate::fleet::Behind::default())
        }
        fn live(&self, _: usize) -> Result<(), String> {
            Ok(())
        }
        fn take_place(
            &self,
            host: &str,
            _: &[(String, usize)],
        ) -> Result<Option<Vec<String>>, String> {
            let mut holder = self.0.lock().map_err(|e| e.to_string())?;
            if holder.is_empty() || *holder == host {
                *holder = host.to_owned();
                return Ok(None);
            }
            Ok(Some(vec![holder.clone()]))
        }
        fn give_place(&self, host: &str) -> Result<(), String> {
            let mut holder = self.0.lock().map_err(|e| e.to_string())?;
            if *holder == host {
                holder.clear();
            }
            Ok(())
        }
    }

    #[test]
    fn a_host_waiting_for_another_shares_place_is_not_ahead_of_the_host_that_holds_it() {
        // A share taken over mid-reboot: n3's place is still its own in the store, n4 waits
        // for it there; n3, resuming its reboot, must not yield to n4 (found as a hang of
        // `shared_run`'s takeover test: n3 waited behind n4, n4 for n3's place).
        let fleet = std::sync::Arc::new(OnePlace(Mutex::new("n3".into())));
        let budget = std::sync::Arc::new(DisruptionBudget::new(Some(1)).with_fleet(fleet));
        let cancel = Cancel::default();
        let (waits, waited) = std::sync::mpsc::channel();
        let n4 = {
            let (budget, cancel) = (budget.clone(), cancel.clone());
            std::thread::spawn(move || {
                budget.acquire("n4", Disruption::Reboot, &UP, &cancel, |_| {
                    let _ = waits.send(());
                })
            })
        };
        waited
            .recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("n4 never waited: {e}"));
        let (done, finished) = std::sync::mpsc::channel();
        let n3 = {
            let (budget, cancel) = (budget.clone(), cancel.clone());
            std::thread::spawn(move || {
                let taken = budget.acquire("n3", Disruption::Reboot, &UP, &cancel, |_| {});
                let _ = done.send(taken.is_ok());
            })
        };
        let n3_took = finished.recv_timeout(Duration::from_secs(3));
        if n3_took.is_err() {
            cancel.cancel();
        }
        assert_eq!(
            n3_took.ok(),
            Some(true),
            "n3 waited behind n4 for its own place"
        );
        budget.release("n3", Disruption::Reboot);
        assert!(
            n4.join().is_ok_and(|taken| taken.is_ok()),
            "n4 took the place n3 gave back"
        );
        let _ = n3.join();
    }

    /// `esx01`, `esx02` in `esxi`; `vm01`..`vm03` in `guests`.
    fn cluster() -> Vec<HostInfo> {
        let host = |name: &str, group: &str| HostInfo {
            groups: vec![group.to_owned()],
            name: name.to_owned(),
            vars: BTreeMap::new(),
        };
        vec![
            host("esx01", "esxi"),
            host("esx02", "esxi"),
            host("vm01", "guests"),
            host("vm02", "guests"),
            host("vm03", "guests"),
        ]
    }

    /// The budget `--max-unavailable text` gives [`cluster`].
    fn budget_of(text: &str) -> DisruptionBudget {
        let budgets = Budgets::parse(text).unwrap_or_else(|e| panic!("{e}"));
        DisruptionBudget::for_hosts(Some(&budgets), &cluster())
    }

    #[test]
    fn a_group_counts_only_its_own_hosts_and_its_failures_hold_only_its_places() {
        let budget = budget_of("esxi=1,guests=2");
        let cancel = Cancel::default();
        let never = |_: &Full| panic!("should not wait");
        assert!(
            budget
                .acquire("esx01", Disruption::Maintenance, &UP, &cancel, never)
                .is_ok()
        );
        budget.fail("esx01");
        budget.leave("esx01");
        for vm in ["vm01", "vm02"] {
            assert!(
                budget
                    .acquire(vm, Disruption::Reboot, &UP, &cancel, never)
                    .is_ok(),
                "{vm}: a failed ESXi host holds no guest's place"
            );
        }
        let mut full = None;
        let cancel_later = cancel.clone();
        let refused = budget.acquire("vm03", Disruption::Reboot, &UP, &cancel, |f| {
            full = Some(f.clone());
            cancel_later.cancel();
        });
        assert!(
            refused.is_err(),
            "the third guest waits for a guest's place"
        );
        let full = full.unwrap_or_else(|| panic!("vm03 did not wait"));
        assert_eq!(full.group.as_deref(), Some("guests"));
        assert_eq!(full.limit, 2);
        let waiting_for: Vec<&str> = full.holders.iter().map(|(h, _)| h.as_str()).collect();
        assert_eq!(waiting_for, ["vm01", "vm02"]);
        let stuck = budget.acquire(
            "esx02",
            Disruption::Maintenance,
            &UP,
            &Cancel::default(),
            |_| {},
        );
        let message = stuck.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            message.contains("--max-unavailable esxi=1: 1 unavailable, held by hosts that left the run (esx01 failed)"),
            "{message}"
        );
    }

    #[test]
    fn a_run_wide_limit_and_a_group_limit_both_hold() {
        let budget = budget_of("2,guests=25%");
        let cancel = Cancel::default();
        let never = |_: &Full| panic!("should not wait");
        for host in ["vm01", "esx01"] {
            assert!(
                budget
                    .acquire(host, Disruption::Reboot, &UP, &cancel, never)
                    .is_ok()
            );
        }
        let mut group = Some(String::from("unset"));
        let cancel_later = cancel.clone();
        let _ = budget.acquire("esx02", Disruption::Reboot, &UP, &cancel, |f| {
            group = f.group.clone();
            cancel_later.cancel();
        });
        assert_eq!(group, None, "the run's limit of 2 is reached first");
    }

    #[test]
    fn holders_waiting_at_a_later_barrier_for_the_waiter_are_a_deadlock_not_a_wait() {
        let budget = DisruptionBudget::new(Some(1));
        let cancel = Cancel::default();
        for host in ["esx01", "esx02"] {
            budget.unpark(host, Wait::Barrier(1));
        }
        let never = |_: &Full| panic!("should not wait");
        assert!(
            budget
                .acquire("esx01", Disruption::Maintenance, &UP, &cancel, never)
                .is_ok()
        );
        budget.park("esx01", Wait::Barrier(2));
        let refused = budget.acquire("esx02", Disruption::Maintenance, &UP, &cancel, |_| {});
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
                .acquire("esx01", Disruption::Reboot, &UP, &cancel, |_| {})
                .is_ok()
        );
        budget.park("esx01", Wait::Barrier(2));
        let waiter = {
            let (budget, cancel) = (budget.clone(), cancel.clone());
            std::thread::spawn(move || {
                budget.acquire("esx02", Disruption::Reboot, &UP, &cancel, |_| {})
            })
        };
        std::thread::sleep(Duration::from_millis(150));
        assert!(!waiter.is_finished(), "esx02 must wait, not fail");
        budget.unpark("esx01", Wait::Barrier(2));
        budget.release("esx01", Disruption::Reboot);
        assert!(matches!(waiter.join(), Ok(Ok(()))));
    }

    #[test]
    fn a_freed_place_goes_to_a_waiting_window_before_an_earlier_reboot() {
        let budget = std::sync::Arc::new(DisruptionBudget::new(Some(1)));
        let cancel = Cancel::default();
        let take = |host: &'static str, why: Disruption| {
            let (budget, cancel) = (budget.clone(), cancel.clone());
            std::thread::spawn(move || budget.acquire(host, why, &UP, &cancel, |_| {}))
        };
        assert!(
            budget
                .acquire("esx01", Disruption::Declared, &UP, &cancel, |_| {})
                .is_ok()
        );
        let reboot = take("vm01", Disruption::Reboot);
        std::thread::sleep(Duration::from_millis(150));
        let window = take("esx02", Disruption::Maintenance);
        std::thread::sleep(Duration::from_millis(150));
        budget.release("esx01", Disruption::Declared);
        assert!(matches!(window.join(), Ok(Ok(()))));
        std::thread::sleep(Duration::from_millis(150));
        assert!(
            !reboot.is_finished() && !budget.holds("vm01"),
            "vm01's reboot came first but waits behind esx02's window"
        );
        budget.release("esx02", Disruption::Maintenance);
        assert!(matches!(reboot.join(), Ok(Ok(()))));
        assert!(budget.holds("vm01"));
    }

    #[test]
    fn a_holder_waiting_for_its_batch_behind_the_waiter_is_a_deadlock() {
        let budget = DisruptionBudget::new(Some(1));
        let cancel = Cancel::default();
        assert!(
            budget
                .acquire("esx02", Disruption::Maintenance, &UP, &cancel, |_| {})
                .is_ok()
        );
        budget.park("esx02", Wait::Batch(3));
        budget.unpark("esx01", Wait::Batch(3));
        let refused = budget.acquire("esx01", Disruption::Reboot, &UP, &cancel, |_| {});
        let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("for their batch of stage 3"), "{message}");
    }

    #[test]
    fn a_halted_roll_lets_a_host_already_down_go_on_and_stops_a_host_still_up() {
        let budget = DisruptionBudget::new(None);
        let (halt, cancel) = (Halt::new(), Cancel::default());
        let fine = |_: &Full| {};
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
