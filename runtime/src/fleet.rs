//! A run shared by several controllers from the start (`cairn run --controllers N`,
//! docs/fleet.md): its hosts are cut into N shares, each driven as a run of its own (the first
//! by the controller that started it, the others by `cairn join`), so that leases, fencing,
//! journals, resume and standby work per share exactly as per run. What spans the shares is
//! kept in the shared store: the stage barriers (no host starts stage k before every host of
//! every share still in the run has reached it) and the disruption budget (hosts down across
//! every controller of the run).
//!
//! [`FleetShare`] is which share a run is (in its `run.json`), [`FleetSync`] the shared store's
//! side of the barriers and budget that span the shares, [`FleetPlan`] what the executor is given;
//! `launch/shares.rs` checks and cuts, `executor/begin.rs` stores the other shares.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::HostInfo;

/// Which share of a shared run a run is, as its `run.json` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FleetShare {
    /// The shared run's id: its first share's run id.
    pub run: String,
    /// This share's number, from 1.
    pub share: u32,
    /// How many shares the run was cut into.
    pub shares: u32,
    /// Every host of the shared run, in inventory order (each share's are a slice of them).
    pub hosts: Vec<String>,
}

impl FleetShare {
    /// The run id of share `k` of shared run `run`: `run` itself for the first, `run.k` after.
    pub fn run_id_of(run: &str, k: u32) -> String {
        if k == 1 {
            run.to_owned()
        } else {
            format!("{run}.{k}")
        }
    }

    /// `hosts` cut into `shares` slices in their order, as even as they go (the first ones a
    /// host larger when they do not divide): each share's number and hosts.
    pub fn split(hosts: &[String], shares: u32) -> Vec<(u32, Vec<String>)> {
        let count = shares.max(1) as usize;
        let (base, extra) = (hosts.len() / count, hosts.len() % count);
        let mut start = 0;
        (0..count)
            .map(|i| {
                let len = base + usize::from(i < extra);
                let slice = hosts[start..start + len].to_vec();
                start += len;
                (i as u32 + 1, slice)
            })
            .collect()
    }
}

/// What the shares of a shared run agree on through the store. Each call is one round trip;
/// an `Err` is the store's failure, in words.
pub trait FleetSync: std::fmt::Debug + Send + Sync {
    /// This share reached stage `stage` with `live` hosts still in the run: records it, and
    /// says how many shares still in the run have not reached it (none: the barrier opens).
    fn reached(&self, stage: u64, live: usize) -> Result<Behind, String>;

    /// This share has `live` hosts still in the run (a host finished or failed); a share with
    /// none holds no barrier.
    fn live(&self, live: usize) -> Result<(), String>;

    /// Takes a place in the shared budget for `host`, in each of `pools` (a limit's label,
    /// empty for the run's own, and the limit): `None` when taken (or held already), else the
    /// hosts of the other shares that fill a pool.
    fn take_place(
        &self,
        host: &str,
        pools: &[(String, usize)],
    ) -> Result<Option<Vec<String>>, String>;

    /// Gives `host`'s place in the shared budget back.
    fn give_place(&self, host: &str) -> Result<(), String>;

    /// Gives the places of all of `hosts` back at once (a share's resume, for the hosts its
    /// journals leave up).
    fn give_places(&self, hosts: &[String]) -> Result<(), String> {
        hosts.iter().try_for_each(|host| self.give_place(host))
    }
}

/// The shares a barrier still waits for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Behind {
    /// Shares with a host still in the run that have not reached the stage.
    pub shares: usize,
    /// Of them, those no controller has claimed yet (`cairn join` has not come).
    pub unclaimed: usize,
}

/// A share's run as the executor is given it.
#[derive(Debug, Clone)]
pub struct FleetPlan {
    /// Which share this run is.
    pub share: FleetShare,
    /// Every host of the shared run, for the budget's limits (a percentage counts them all).
    pub hosts: Vec<HostInfo>,
    /// The store's side of the barriers and the budget.
    pub sync: Arc<dyn FleetSync>,
    /// A new shared run's other shares (run id and hosts), stored before any host starts so
    /// that `cairn join` finds them; empty on a resume.
    pub others: Vec<(String, Vec<String>)>,
}

#[cfg(test)]
mod tests {
    use super::FleetShare;

    fn names(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("n{i:02}")).collect()
    }

    #[test]
    fn a_split_keeps_every_host_once_in_order_and_as_even_as_it_goes() {
        let hosts = names(10);
        let shares = FleetShare::split(&hosts, 4);
        let sizes: Vec<usize> = shares.iter().map(|(_, h)| h.len()).collect();
        assert_eq!(sizes, [3, 3, 2, 2]);
        let joined: Vec<String> = shares.into_iter().flat_map(|(_, h)| h).collect();
        assert_eq!(joined, hosts);
    }

    #[test]
    fn the_first_share_is_the_run_itself() {
        assert_eq!(
            FleetShare::run_id_of("20261204-101500", 1),
            "20261204-101500"
        );
        assert_eq!(
            FleetShare::run_id_of("20261204-101500", 3),
            "20261204-101500.3"
        );
    }
}
