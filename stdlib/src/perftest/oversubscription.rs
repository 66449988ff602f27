//! Oversubscribed leaf uplinks in the simulated fabric: hosts on different leaf switches reach
//! each other through the leaves' uplinks to the spine (`ib_spine`), and when more concurrent
//! flows cross a leaf's uplinks than it has (`leaf_uplinks`, counted in ports of the hosts'
//! rate), they share them evenly, as a fat tree with a blocking factor does under ClusterKit's
//! all-pairs rounds. By default a leaf has as many uplinks as it needs (non-blocking): no loss.
//!
//! The concurrent flows are the perftest servers listening on the fabric, each started with the
//! client it waits for (`PEER=` in cairn's background start): `fabric::all_pairs` starts every
//! server of a round before any client, so each client sees the whole round, whatever the
//! threads' timing.

use std::collections::BTreeMap;

use cairn_runtime::sim::SimContext;
use serde_json::Value;

use crate::machine::guest::{GuestHw, peer_tools, sibling_hosts};
use crate::machine::processes::{Process, program_of};

/// The fraction of its rate the flow from `client` to `server` gets: 1 on one leaf or through
/// non-blocking leaves, else the tighter of the client leaf's uplinks and the server leaf's
/// over the flows crossing each.
pub(crate) fn share(host: &SimContext<'_>, client: &GuestHw, server: &GuestHw) -> f64 {
    if client.ib_switch == server.ib_switch
        || (client.leaf_uplinks.is_none() && server.leaf_uplinks.is_none())
    {
        return 1.0;
    }
    let (mut leaves, flows) = round_flows(host);
    for hw in [client, server] {
        leaves.insert(hw.host.clone(), hw.ib_switch.clone());
    }
    let leaf = |name: &str| leaves.get(name).map(String::as_str);
    let up = flows
        .iter()
        .filter(|(c, s)| leaf(c) == Some(&client.ib_switch) && leaf(s) != Some(&client.ib_switch))
        .count()
        .max(1);
    let down = flows
        .iter()
        .filter(|(c, s)| leaf(s) == Some(&server.ib_switch) && leaf(c) != Some(&server.ib_switch))
        .count()
        .max(1);
    let mut share: f64 = 1.0;
    if let Some(uplinks) = client.leaf_uplinks {
        share = share.min(f64::from(uplinks) / up as f64);
    }
    if let Some(uplinks) = server.leaf_uplinks {
        share = share.min(f64::from(uplinks) / down as f64);
    }
    share
}

/// Every host's leaf switch, and the (client, server) of every perftest server listening for
/// a named client, from the hosts' states (read-only).
fn round_flows(host: &SimContext<'_>) -> (BTreeMap<String, String>, Vec<(String, String)>) {
    let mut leaves = BTreeMap::new();
    let mut flows = Vec::new();
    for name in sibling_hosts(host) {
        let Some(tools) = peer_tools(host, &name) else {
            continue;
        };
        if let Some(hw) = tools
            .get("guest")
            .and_then(|g| serde_json::from_value::<GuestHw>(g.clone()).ok())
        {
            leaves.insert(name.clone(), hw.ib_switch);
        }
        let running = tools
            .get("processes")
            .and_then(|p| p.get("running"))
            .and_then(Value::as_object);
        for process in running.into_iter().flat_map(|r| r.values()) {
            let Ok(process) = serde_json::from_value::<Process>(process.clone()) else {
                continue;
            };
            if !super::programs::is_perftest(program_of(&process.argv)) {
                continue;
            }
            if let Some(peer) = process.peer {
                flows.push((peer, name.clone()));
            }
        }
    }
    (leaves, flows)
}
