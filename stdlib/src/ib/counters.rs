//! The fabric's error counters at one moment (`ib::error_counters()`) and what moved between
//! two such moments (`ib::counter_deltas(before, after)`): read before and after a test, the
//! ports whose counters grew during it, each on its link named by both ends.
//!
//! The counters are `ibqueryerrors`' (without a threshold file it lists every port with a
//! counter above 0), so a port it does not list held 0.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::fabric_links::{Links, guid_value};
use super::ibqueryerrors::IbQueryErrors;

/// A port's counters above 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PortErrors {
    /// The node description.
    pub node: String,
    /// The port GUID as printed (a switch port's: the switch's).
    pub guid: String,
    pub port: u32,
    /// The link it is an end of, named by both ends; null when iblinkinfo shows none.
    #[serde(deserialize_with = "crate::action::present")]
    pub link: Option<String>,
    /// Each counter above 0, by name (`SymbolErrorCounter`).
    pub counters: BTreeMap<String, u64>,
}

/// Every port's counters above 0 at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorCounters {
    pub ports: Vec<PortErrors>,
}

/// One counter that moved between two snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterDelta {
    pub node: String,
    pub port: u32,
    /// The link, named by both ends (null: none known).
    pub link: Option<String>,
    pub counter: String,
    pub before: u64,
    pub after: u64,
    /// How much it grew; a counter cleared in between (lower after) counts what it holds.
    pub delta: u64,
}

impl ErrorCounters {
    /// The ports of an `ibqueryerrors` run (not a switch's `port ALL` sum), on their links.
    pub(crate) fn of(errors: &IbQueryErrors, links: &Links) -> Self {
        let mut ports = Vec::new();
        for node in &errors.nodes {
            for p in &node.ports {
                let Some(port) = p.port.filter(|_| !p.all_ports) else {
                    continue;
                };
                ports.push(PortErrors {
                    node: node.name.clone(),
                    guid: p.guid.clone(),
                    port,
                    link: links.link_of(&p.guid, port).map(|l| l.name.clone()),
                    counters: p.counters.clone(),
                });
            }
        }
        Self { ports }
    }

    /// Every counter that grew from `before` to `self`, in port order.
    pub(crate) fn since(&self, before: &Self) -> Vec<CounterDelta> {
        let key = |p: &PortErrors| (guid_value(&p.guid), p.port);
        let mut moved = Vec::new();
        for now in &self.ports {
            let then = before.ports.iter().find(|b| key(b) == key(now));
            for (counter, after) in &now.counters {
                let was = then
                    .and_then(|t| t.counters.get(counter))
                    .copied()
                    .unwrap_or(0);
                let delta = if *after >= was { after - was } else { *after };
                if delta > 0 {
                    moved.push(CounterDelta {
                        node: now.node.clone(),
                        port: now.port,
                        link: now.link.clone(),
                        counter: counter.clone(),
                        before: was,
                        after: *after,
                        delta,
                    });
                }
            }
        }
        moved
    }
}
