//! The leaf switch of each host, from `ibnetdiscover` run on one of them: what the controller
//! can see of the fabric (a channel adapter's node description is `<hostname> <device>`, the
//! mlx5 driver's default, and its port line names the switch it is cabled to).
//! `fabric::all_pairs` uses it to tell an oversubscribed leaf's uplinks from bad hosts.

use std::collections::BTreeMap;

use crate::ib::ibnetdiscover::Topology;

/// Each of `hosts` that the topology lists, with the description of the switch its first
/// connected port is cabled to.
pub(crate) fn leaves(topology: &Topology, hosts: &[String]) -> BTreeMap<String, String> {
    let switch = |node_ref: &str| {
        topology
            .switches
            .iter()
            .find(|s| s.node_ref.as_deref() == Some(node_ref))
            .and_then(|s| s.description.clone())
    };
    topology
        .channel_adapters
        .iter()
        .filter_map(|ca| {
            let host = ca.description.as_deref()?.split_whitespace().next()?;
            if !hosts.iter().any(|h| h == host) {
                return None;
            }
            let leaf = ca.ports.iter().find_map(|p| {
                let remote = p.remote.as_ref().filter(|r| r.kind == "switch")?;
                remote
                    .description
                    .clone()
                    .or_else(|| switch(remote.node_ref.as_deref()?))
            })?;
            Some((host.to_owned(), leaf))
        })
        .collect()
}
