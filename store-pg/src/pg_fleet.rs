//! The runtime's [`FleetSync`] on PostgreSQL: one share's side of the barriers and budget of a
//! run shared between controllers (`fleet_share.rs`), each call bounded as every call of a run
//! is ([`PgShared`]'s answer limit).

use cairn_runtime::{Behind, FleetShare, FleetSync};

use crate::PgShared;

/// Share `share` of shared run `fleet_run`, through this controller's session.
#[derive(Debug)]
pub(crate) struct PgFleet {
    shared: PgShared,
    fleet_run: String,
    share: i32,
}

impl PgFleet {
    pub(crate) fn new(shared: PgShared, share: &FleetShare) -> Self {
        Self {
            shared,
            fleet_run: share.run.clone(),
            share: i32::try_from(share.share).unwrap_or(i32::MAX),
        }
    }
}

impl FleetSync for PgFleet {
    fn reached(&self, stage: u64, live: usize) -> Result<Behind, String> {
        let (run, share) = (self.fleet_run.clone(), self.share);
        self.shared
            .bounded("read a shared run's barrier", move |store, _| {
                store.share_reached(&run, share, stage, live)
            })
            .map(|(shares, unclaimed)| Behind { shares, unclaimed })
            .map_err(|error| error.to_string())
    }

    fn live(&self, live: usize) -> Result<(), String> {
        let (run, share) = (self.fleet_run.clone(), self.share);
        self.shared
            .bounded("record a share's hosts", move |store, _| {
                store.share_live(&run, share, live)
            })
            .map_err(|error| error.to_string())
    }

    fn take_place(
        &self,
        host: &str,
        pools: &[(String, usize)],
    ) -> Result<Option<Vec<String>>, String> {
        let (run, host, pools) = (self.fleet_run.clone(), host.to_owned(), pools.to_vec());
        self.shared
            .bounded("take a place in a shared run's budget", move |store, _| {
                store.take_place(&run, &host, &pools)
            })
            .map_err(|error| error.to_string())
    }

    fn give_places(&self, hosts: &[String]) -> Result<(), String> {
        let (run, hosts) = (self.fleet_run.clone(), hosts.to_vec());
        self.shared
            .bounded(
                "give places in a shared run's budget back",
                move |store, _| store.give_places(&run, &hosts),
            )
            .map_err(|error| error.to_string())
    }

    fn give_place(&self, host: &str) -> Result<(), String> {
        let (run, host) = (self.fleet_run.clone(), host.to_owned());
        self.shared
            .bounded(
                "give a place in a shared run's budget back",
                move |store, _| store.give_place(&run, &host),
            )
            .map_err(|error| error.to_string())
    }
}
