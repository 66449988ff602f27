//! The simulated `ibnetdiscover`: the whole fabric the host's IB port reaches, in the topology
//! file format infiniband-diags writes (its man page's example, the golden
//! `tests/fixtures/ibnetdiscover/rdma-core-man-topology-example.txt`): every switch with one
//! line per cabled port (a channel adapter's port, or another switch's for an uplink), then
//! every channel adapter with the line of its port.
//!
//! What it reaches: every guest whose IB port is up on the host's leaf switch (`ib_switch`),
//! and with a spine (`ib_spine`) every leaf uplinked to the same spine and their guests. The
//! cabling is the one the simulated `ibdiagnet` scans (`ib::ibdiagnet::sim`), so what this
//! prints for a clean lab is a valid design topology for `ib::ibdiagnet`: a guest on the leaf
//! port of its node number; each leaf's uplink on the port after its last (and after the
//! switch model's own ports), cabled to the spine's port of the leaf's place in name order.
//! LIDs: the spine 1 and the leaves 2, 3, ... in name order (a lone leaf without a spine: 1).

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use crate::ib::switch::switch_of;
use crate::machine::guest::{GuestHw, LinkLayer, out};
use crate::machine::ports::{PortView, fabric_members};

/// A guest on the fabric: its hardware, node description, port GUID and LID.
struct Member {
    hw: GuestHw,
    name: String,
    guid: String,
    lid: u32,
}

/// A switch of the fabric: GUID, description, device id, port count, LID.
struct Switch {
    guid: String,
    desc: String,
    devid: &'static str,
    ports: u32,
    lid: u32,
}

/// The link's width and speed as ibnetdiscover prints them after the remote's lid, `4xEDR`
/// (`1xEDR` for a port trained at 1X).
fn speed(hw: &GuestHw) -> String {
    hw.rate_text().replace("X ", "x")
}

/// A GUID as ibnetdiscover prints it in parentheses: without leading zeros.
fn short(guid: &str) -> &str {
    guid.trim_start_matches('0')
}

/// The switch's header lines.
fn switch_header(s: &Switch) -> String {
    format!(
        "\nvendid=0x2c9\ndevid={}\nsysimgguid=0x{g}\nswitchguid=0x{g}({})\nSwitch\t{} \"S-{g}\"\t\t# \"{}\" enhanced port 0 lid {} lmc 0\n",
        s.devid,
        short(&s.guid),
        s.ports,
        s.desc,
        s.lid,
        g = s.guid
    )
}

/// A leaf switch of the fabric with its uplink port (with a spine) and its members, in node
/// order.
struct Leaf<'a> {
    switch: Switch,
    uplink: Option<u32>,
    members: &'a [&'a Member],
}

/// `ibnetdiscover` on a guest whose IB ports are `ports`.
pub(crate) fn run(host: &SimContext<'_>, ports: &[PortView], hw: &GuestHw) -> ExecOutput {
    let mine = match own_port(ports) {
        Ok(mine) => mine,
        Err(failure) => return failure,
    };
    let members = members(host, hw, mine);
    // The leaves in name order, each with its members (in node order).
    let mut by_leaf: BTreeMap<String, Vec<&Member>> = BTreeMap::new();
    for m in &members {
        by_leaf.entry(m.hw.ib_switch.clone()).or_default().push(m);
    }
    let spine = spine_switch(hw, by_leaf.len());
    let leaves = leaf_switches(&by_leaf, spine.is_some());
    let date = date_line(host.now_millis());
    let mut text = format!(
        "#\n# Topology file: generated on {date}\n#\n# Initiated from node {g} port {g}\n",
        g = mine.hw.guid
    );
    for leaf in &leaves {
        text.push_str(&leaf_lines(leaf, spine.as_ref()));
    }
    if let Some(spine) = &spine {
        text.push_str(&spine_lines(spine, &leaves));
    }
    text.push_str(&adapter_lines(&members, &leaves));
    out(0, text, "")
}

/// The host's IB port ibnetdiscover discovers from, or its failure when there is none or the
/// port is not up.
fn own_port(ports: &[PortView]) -> Result<&PortView, ExecOutput> {
    let Some(mine) = ports
        .iter()
        .find(|p| p.hw.link_layer == LinkLayer::InfiniBand)
    else {
        return Err(out(
            1,
            "",
            "ibwarn: [4321] mad_rpc_open_port: can't open UMAD port ((null):0)\nibnetdiscover: iberror: failed: discover failed\n",
        ));
    };
    if !mine.active {
        return Err(out(
            1,
            "",
            "ibwarn: [4321] _do_madrpc: recv failed: Connection timed out\nibnetdiscover: iberror: failed: discover failed\n",
        ));
    }
    Ok(mine)
}

/// The guests the port reaches, in node order (then by host name).
fn members(host: &SimContext<'_>, hw: &GuestHw, mine: &PortView) -> Vec<Member> {
    let mut members: Vec<Member> = fabric_members(host, hw, mine)
        .into_iter()
        .map(|m| Member {
            name: format!("{} {}", m.hw.host, m.device),
            guid: m.guid,
            lid: m.lid,
            hw: m.hw,
        })
        .collect();
    members.sort_by(|a, b| (a.hw.node, &a.hw.host).cmp(&(b.hw.node, &b.hw.host)));
    members
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
fn leaf_switches<'a>(by_leaf: &'a BTreeMap<String, Vec<&'a Member>>, spine: bool) -> Vec<Leaf<'a>> {
    let mut leaves = Vec::new();
    for (index, on_leaf) in by_leaf.values().enumerate() {
        let Some(first) = on_leaf.first() else {
            continue;
        };
        let (guid, desc, devid, count) = switch_of(&first.hw);
        let highest = on_leaf.iter().map(|m| m.hw.node).max().unwrap_or(0);
        let index = u32::try_from(index).unwrap_or(0);
        let (ports, uplink, lid) = if spine {
            (
                count.max(highest) + 1,
                Some(count.max(highest) + 1),
                2 + index,
            )
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

/// A leaf's block: its header, a line for each member's port, and its uplink to the spine.
fn leaf_lines(leaf: &Leaf<'_>, spine: Option<&Switch>) -> String {
    let mut text = switch_header(&leaf.switch);
    for m in leaf.members {
        text.push_str(&format!(
            "[{}]\t\"H-{g}\"[1]({})\t\t# \"{}\" lid {} {}\n",
            m.hw.node,
            short(&m.guid),
            m.name,
            m.lid,
            speed(&m.hw),
            g = m.guid
        ));
    }
    if let (Some(spine), Some(uplink), Some(first)) = (spine, leaf.uplink, leaf.members.first()) {
        let spine_port = leaf.switch.lid - 1;
        text.push_str(&format!(
            "[{uplink}]\t\"S-{}\"[{spine_port}]\t\t# \"{}\" lid {} {}\n",
            spine.guid,
            spine.desc,
            spine.lid,
            first.hw.nominal_rate_text().replace("X ", "x")
        ));
    }
    text
}

/// The spine's block: its header and a line for each leaf's uplink, on the spine's port of
/// the leaf's place in name order.
fn spine_lines(spine: &Switch, leaves: &[Leaf<'_>]) -> String {
    let mut text = switch_header(spine);
    for leaf in leaves {
        let (Some(uplink), Some(first)) = (leaf.uplink, leaf.members.first()) else {
            continue;
        };
        text.push_str(&format!(
            "[{}]\t\"S-{}\"[{uplink}]\t\t# \"{}\" lid {} {}\n",
            leaf.switch.lid - 1,
            leaf.switch.guid,
            leaf.switch.desc,
            leaf.switch.lid,
            first.hw.nominal_rate_text().replace("X ", "x")
        ));
    }
    text
}

/// Every channel adapter's block, in node order: its header and the line of its port, cabled
/// to its leaf.
fn adapter_lines(members: &[Member], leaves: &[Leaf<'_>]) -> String {
    let mut leaf_of: BTreeMap<&str, &Switch> = BTreeMap::new();
    for leaf in leaves {
        for m in leaf.members {
            leaf_of.insert(&m.guid, &leaf.switch);
        }
    }
    let mut text = String::new();
    for m in members {
        let Some(leaf) = leaf_of.get(m.guid.as_str()) else {
            continue;
        };
        text.push_str(&format!(
            "\nvendid=0x2c9\ndevid=0x1017\nsysimgguid=0x{g}\ncaguid=0x{g}\nCa\t1 \"H-{g}\"\t\t# \"{}\"\n[1]({})\t\"S-{}\"[{}]\t\t# lid {} lmc 0 \"{}\" lid {} {}\n",
            m.name,
            short(&m.guid),
            leaf.guid,
            m.hw.node,
            m.lid,
            leaf.desc,
            leaf.lid,
            speed(&m.hw),
            g = m.guid
        ));
    }
    text
}

/// `Mon Nov 30 05:00:00 2026` for a clock reading (virtual or Unix epoch milliseconds).
fn date_line(millis: u64) -> String {
    let t = cairn_runtime::utc_time::UtcTime::from_millis(millis);
    let (weekday, month_name, day, year) = (t.weekday, t.month_name(), t.day, t.year);
    let (h, m, s) = (t.hour, t.minute, t.second);
    format!("{weekday} {month_name} {day:>2} {h:02}:{m:02}:{s:02} {year}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(
            super::date_line(1_796_014_800_000),
            "Mon Nov 30 05:00:00 2026"
        );
    }
}
