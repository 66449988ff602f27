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

/// `ibnetdiscover` on a guest whose IB ports are `ports`.
pub(crate) fn run(host: &SimContext<'_>, ports: &[PortView], hw: &GuestHw) -> ExecOutput {
    let Some(mine) = ports
        .iter()
        .find(|p| p.hw.link_layer == LinkLayer::InfiniBand)
    else {
        return out(
            1,
            "",
            "ibwarn: [4321] mad_rpc_open_port: can't open UMAD port ((null):0)\nibnetdiscover: iberror: failed: discover failed\n",
        );
    };
    if !mine.active {
        return out(
            1,
            "",
            "ibwarn: [4321] _do_madrpc: recv failed: Connection timed out\nibnetdiscover: iberror: failed: discover failed\n",
        );
    }
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
    // The leaves in name order, each with its members (in node order).
    let mut leaves: BTreeMap<String, Vec<&Member>> = BTreeMap::new();
    for m in &members {
        leaves.entry(m.hw.ib_switch.clone()).or_default().push(m);
    }
    let spine = hw.ib_spine.as_ref().map(|name| {
        let mut as_spine = hw.clone();
        as_spine.ib_switch.clone_from(name);
        let (guid, desc, devid, count) = switch_of(&as_spine);
        Switch {
            guid,
            desc,
            devid,
            ports: count.max(u32::try_from(leaves.len()).unwrap_or(u32::MAX)),
            lid: 1,
        }
    });
    // Each leaf with its uplink port (with a spine).
    let mut switches: Vec<(Switch, Option<u32>, &Vec<&Member>)> = Vec::new();
    for (index, on_leaf) in leaves.values().enumerate() {
        let Some(first) = on_leaf.first() else {
            continue;
        };
        let (guid, desc, devid, count) = switch_of(&first.hw);
        let highest = on_leaf.iter().map(|m| m.hw.node).max().unwrap_or(0);
        let index = u32::try_from(index).unwrap_or(0);
        let (ports, uplink, lid) = match spine {
            Some(_) => (
                count.max(highest) + 1,
                Some(count.max(highest) + 1),
                2 + index,
            ),
            None => (count.max(highest), None, 1 + index),
        };
        switches.push((
            Switch {
                guid,
                desc,
                devid,
                ports,
                lid,
            },
            uplink,
            on_leaf,
        ));
    }
    let date = date_line(host.now_millis());
    let mut text = format!(
        "#\n# Topology file: generated on {date}\n#\n# Initiated from node {g} port {g}\n",
        g = mine.hw.guid
    );
    let mut leaf_of: BTreeMap<&str, &Switch> = BTreeMap::new();
    for (leaf, uplink, on_leaf) in &switches {
        text.push_str(&switch_header(leaf));
        for m in on_leaf.iter() {
            leaf_of.insert(&m.guid, leaf);
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
        if let (Some(spine), Some(uplink), Some(first)) = (&spine, uplink, on_leaf.first()) {
            let spine_port = leaf.lid - 1;
            text.push_str(&format!(
                "[{uplink}]\t\"S-{}\"[{spine_port}]\t\t# \"{}\" lid {} {}\n",
                spine.guid,
                spine.desc,
                spine.lid,
                first.hw.nominal_rate_text().replace("X ", "x")
            ));
        }
    }
    if let Some(spine) = &spine {
        text.push_str(&switch_header(spine));
        for (leaf, uplink, on_leaf) in &switches {
            let (Some(uplink), Some(first)) = (uplink, on_leaf.first()) else {
                continue;
            };
            text.push_str(&format!(
                "[{}]\t\"S-{}\"[{uplink}]\t\t# \"{}\" lid {} {}\n",
                leaf.lid - 1,
                leaf.guid,
                leaf.desc,
                leaf.lid,
                first.hw.nominal_rate_text().replace("X ", "x")
            ));
        }
    }
    for m in &members {
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
    out(0, text, "")
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
