//! The simulated InfiniBand fabric as the diagnostic tools walk it from a host's IB port
//! (`ibnetdiscover`, `iblinkinfo`, `ibqueryerrors`, `perfquery`): every guest whose IB port is
//! up on the host's leaf switch (`ib_switch`), and with a spine (`ib_spine`) every leaf
//! uplinked to the same spine and their guests.
//!
//! The cabling is the one the simulated `ibdiagnet` scans: a guest on the leaf port of its node
//! number; each leaf's uplink on the port after its last (and after the switch model's own
//! ports), cabled to the spine's port of the leaf's place in name order. LIDs: the spine 1 and
//! the leaves 2, 3, ... in name order (a lone leaf without a spine: 1).

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use crate::ib::switch::switch_of;
use crate::machine::guest::{GuestHw, LinkLayer, out};
use crate::machine::link_counters::{LinkCounters, link_counters};
use crate::machine::ports::{PortView, fabric_members};

/// A guest on the fabric: its hardware, node description (`HOST DEVICE`), port GUID, LID and
/// when its port came up (on its own clock).
pub(crate) struct Member {
    pub(crate) hw: GuestHw,
    pub(crate) name: String,
    pub(crate) guid: String,
    pub(crate) lid: u32,
    pub(crate) up_millis: u64,
}

/// A switch of the fabric: GUID, description, device id, port count, LID.
pub(crate) struct Switch {
    pub(crate) guid: String,
    pub(crate) desc: String,
    pub(crate) devid: &'static str,
    pub(crate) ports: u32,
    pub(crate) lid: u32,
}

/// A leaf switch with its uplink port (with a spine) and its members (indices into
/// [`SimFabric::members`]), in node order.
pub(crate) struct Leaf {
    pub(crate) switch: Switch,
    pub(crate) uplink: Option<u32>,
    pub(crate) members: Vec<usize>,
}

/// The fabric a host's IB port reaches.
pub(crate) struct SimFabric {
    /// The guests, in node order (then by host name).
    pub(crate) members: Vec<Member>,
    /// The leaves in name order.
    pub(crate) leaves: Vec<Leaf>,
    pub(crate) spine: Option<Switch>,
}

impl SimFabric {
    /// The fabric `hw`'s IB port reaches, or `program`'s failure when the host has no IB port
    /// or it is not up.
    pub(crate) fn discover(
        host: &SimContext<'_>,
        ports: &[PortView],
        hw: &GuestHw,
        program: &str,
    ) -> Result<(Self, String), ExecOutput> {
        let mine = own_port(ports, program)?;
        let mut members: Vec<Member> = fabric_members(host, hw, mine)
            .into_iter()
            .map(|m| Member {
                name: format!("{} {}", m.hw.host, m.device),
                guid: m.guid,
                lid: m.lid,
                up_millis: m.up_millis,
                hw: m.hw,
            })
            .collect();
        members.sort_by(|a, b| (a.hw.node, &a.hw.host).cmp(&(b.hw.node, &b.hw.host)));
        let mut by_leaf: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (index, m) in members.iter().enumerate() {
            by_leaf
                .entry(m.hw.ib_switch.clone())
                .or_default()
                .push(index);
        }
        let spine = spine_switch(hw, by_leaf.len());
        let leaves = leaf_switches(&members, by_leaf, spine.is_some());
        let fabric = Self {
            members,
            leaves,
            spine,
        };
        Ok((fabric, mine.hw.guid.clone()))
    }

    /// The leaf a member is cabled to.
    pub(crate) fn leaf_of(&self, member: usize) -> Option<&Switch> {
        self.leaves
            .iter()
            .find(|l| l.members.contains(&member))
            .map(|l| &l.switch)
    }

    /// The member at index `index`.
    pub(crate) fn member(&self, index: usize) -> Option<&Member> {
        self.members.get(index)
    }
}

/// The host's IB port the tools query from, or `program`'s failure when there is none or the
/// port is not up.
fn own_port<'a>(ports: &'a [PortView], program: &str) -> Result<&'a PortView, ExecOutput> {
    let Some(mine) = ports
        .iter()
        .find(|p| p.hw.link_layer == LinkLayer::InfiniBand)
    else {
        return Err(out(
            1,
            "",
            format!(
                "ibwarn: [4321] mad_rpc_open_port: can't open UMAD port ((null):0)\n{program}: iberror: failed: discover failed\n"
            ),
        ));
    };
    if !mine.active {
        return Err(out(
            1,
            "",
            format!(
                "ibwarn: [4321] _do_madrpc: recv failed: Connection timed out\n{program}: iberror: failed: discover failed\n"
            ),
        ));
    }
    Ok(mine)
}

/// The spine the host's leaf is uplinked to, if any: LID 1, with a port for each of the
/// `leaves` at least.
fn spine_switch(hw: &GuestHw, leaves: usize) -> Option<Switch> {
    hw.ib_spine.as_ref().map(|name| {
        let mut as_spine = hw.clone();
        as_spine.ib_switch.clone_from(name);
        let (guid, desc, devid, count) = switch_of(&as_spine);
        Switch {
            guid,
            desc,
            devid,
            ports: count.max(u32::try_from(leaves).unwrap_or(u32::MAX)),
            lid: 1,
        }
    })
}

/// The leaves in name order: with a spine, each has an uplink port after its last (and after
/// the switch model's own ports) and the LIDs from 2; without, the LIDs from 1.
fn leaf_switches(
    members: &[Member],
    by_leaf: BTreeMap<String, Vec<usize>>,
    spine: bool,
) -> Vec<Leaf> {
    let mut leaves = Vec::new();
    for (index, on_leaf) in by_leaf.into_values().enumerate() {
        let Some(first) = on_leaf.first().and_then(|i| members.get(*i)) else {
            continue;
        };
        let (guid, desc, devid, count) = switch_of(&first.hw);
        let highest = on_leaf
            .iter()
            .filter_map(|i| members.get(*i))
            .map(|m| m.hw.node)
            .max()
            .unwrap_or(0);
        let index = u32::try_from(index).unwrap_or(0);
        let (ports, uplink, lid) = if spine {
            let uplink = count.max(highest) + 1;
            (uplink, Some(uplink), 2 + index)
        } else {
            (count.max(highest), None, 1 + index)
        };
        leaves.push(Leaf {
            switch: Switch {
                guid,
                desc,
                devid,
                ports,
                lid,
            },
            uplink,
            members: on_leaf,
        });
    }
    leaves
}

impl Member {
    /// Its IB port's link health counters at `now_millis`.
    pub(crate) fn counters(&self, now_millis: u64) -> LinkCounters {
        link_counters(&self.hw, self.up_millis, now_millis)
    }

    /// Its link's width as `iblinkinfo` prints it (`4X`), and what it could be when trained
    /// narrower than its rate's own (`4X`).
    pub(crate) fn width(&self) -> (String, Option<String>) {
        let (nominal, _) = self.hw.nominal();
        let lanes = self.hw.lanes();
        let could_be = (lanes < nominal).then(|| format!("{nominal}X"));
        (format!("{lanes}X"), could_be)
    }
}

/// A lane speed as `iblinkinfo` prints it (infiniband-diags' `mad_dump_linkspeed`/`ext`
/// names): EDR's `25.78125 Gbps`, the golden `sb7700-edr-two-hosts-linpack-notes.txt`.
pub(crate) fn lane_speed_text(hw: &GuestHw) -> &'static str {
    match hw.nominal().1 {
        "NDR" => "106.25 Gbps",
        "HDR" => "53.125 Gbps",
        "FDR" => "14.0625 Gbps",
        "QDR" => "10.0 Gbps",
        _ => "25.78125 Gbps",
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::test_support::sim_exec as run;

    /// Two guests on one leaf, `n2` with a cable that keeps failing: what the simulated link
    /// health tools print parses with the same parsers, and the counters grow on the clock.
    #[test]
    fn the_link_health_printers_parse_and_their_counters_grow_with_time() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let ofed = ("ofed", "5.4-3.0.3.0");
        let a = crate::test_support::rhel8_guest("n1", dir.path().join("n1"), &[ofed]);
        let faults = [
            ofed,
            ("symbol_errors_per_s", "2"),
            ("link_width", "1X"),
            ("effective_ber", "3E-9"),
        ];
        let b = crate::test_support::rhel8_guest("n2", dir.path().join("n2"), &faults);
        for host in [&a, &b] {
            let _ = run(host, &["ibstatus"]);
            let _ = host
                .clock()
                .sleep(Duration::from_secs(12), &cairn_runtime::Cancel::default());
        }
        let text = run(&a, &["iblinkinfo"]).stdout;
        let info = crate::ib::iblinkinfo::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let links = crate::ib::fabric_links::Links::of(&info).links;
        let names: Vec<(&str, &str)> = links
            .iter()
            .map(|l| (l.name.as_str(), l.width.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("n1 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 1", "4X"),
                ("n2 mlx5_0 port 1 to MF0;ib-sw01:MSB7800/U1 port 2", "1X")
            ],
            "{text}"
        );
        let text = run(&a, &["ibqueryerrors"]).stdout;
        let errors =
            crate::ib::ibqueryerrors::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let grown = errors.nodes[0].ports[0]
            .counters
            .get("SymbolErrorCounter")
            .copied();
        assert!(grown.is_some_and(|n| n >= 20), "{text}");
        let lid = 0x12 + 2;
        let text = run(&a, &["perfquery", "-x", &lid.to_string(), "1"]).stdout;
        let perf = crate::ib::perfquery::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            perf.blocks[0].counters.get("SymbolErrorCounter"),
            grown.as_ref()
        );
        // mlxlink is its own namespace: read through the table of parsers (layer 3).
        let mlxlink = |text: &str| {
            let parser = crate::parsers::parser("mlxlink").expect("the mlxlink parser");
            (parser.parse)(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
        };
        let text = run(&b, &["mlxlink", "-d", "mlx5_0", "-c"]).stdout;
        let link = mlxlink(&text);
        assert_eq!(link["operational"]["width"], "1x");
        assert_eq!(link["counters"]["effective_physical_ber"], "3E-9");
        let before = link["counters"]["symbol_errors"].as_u64().unwrap_or(0);
        let _ = b
            .clock()
            .sleep(Duration::from_secs(10), &cairn_runtime::Cancel::default());
        let text = run(&b, &["mlxlink", "-d", "mlx5_0", "-c"]).stdout;
        let after = mlxlink(&text)["counters"]["symbol_errors"].as_u64();
        assert_eq!(after, Some(before + 20), "{text}");
    }
}
