//! The run-wide disruption budget, `--max-unavailable N|P%`: at most that many hosts are
//! unavailable at once, where unavailable means rebooting, in maintenance mode, or failed (as
//! NVIDIA's Maintenance Operator counts hosts already down). `reboot()` and entering
//! maintenance mode wait for room.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

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
    rebooting: bool,
    maintenance: bool,
    failed: bool,
}

impl Holding {
    fn holds(self) -> bool {
        self.rebooting || self.maintenance || self.failed
    }

    fn reason(self) -> &'static str {
        if self.failed {
            "failed"
        } else if self.rebooting {
            "rebooting"
        } else {
            "maintenance"
        }
    }
}

/// What makes a host unavailable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disruption {
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
    /// holder has left the run, so nothing would ever give a place back.
    pub fn acquire(
        &self,
        host: &str,
        why: Disruption,
        cancel: &Cancel,
        mut waiting: impl FnMut(usize, &Holders),
    ) -> Result<(), ActionError> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        let Ok(mut state) = self.state.lock() else {
            return Err(crate::Cancelled.into());
        };
        let mut told = false;
        loop {
            let mine = state.holders.get(host).copied().unwrap_or_default();
            let held = state.holders.values().filter(|h| h.holds()).count();
            if mine.holds() || held < limit {
                let entry = state.holders.entry(host.to_owned()).or_default();
                match why {
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
                Disruption::Reboot => entry.rebooting = false,
                Disruption::Maintenance => entry.maintenance = false,
            }
        }
        self.wake.notify_all();
    }

    /// `host` failed: it stays unavailable for the rest of the run.
    pub fn fail(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state.holders.entry(host.to_owned()).or_default().failed = true;
        }
        self.wake.notify_all();
    }

    /// `host` left the run, holding what it holds.
    pub fn leave(&self, host: &str) {
        if let Ok(mut state) = self.state.lock() {
            state.gone.insert(host.to_owned());
        }
        self.wake.notify_all();
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
                .acquire("esx01", Disruption::Maintenance, &cancel, never)
                .is_ok()
        );
        assert!(
            budget
                .acquire("esx01", Disruption::Reboot, &cancel, never)
                .is_ok()
        );
        budget.release("esx01", Disruption::Reboot);
        budget.fail("esx01");
        budget.release("esx01", Disruption::Maintenance);
        budget.leave("esx01");
        let mut seen = Vec::new();
        let refused = budget.acquire("esx02", Disruption::Reboot, &cancel, |_, h| {
            seen = h.clone()
        });
        assert!(
            refused.is_err(),
            "a failed host that left holds its place for good"
        );
    }
}
