//! The simulated `ibnetdiscover`: the whole fabric the host's IB port reaches, in the topology
//! file format infiniband-diags writes (its man page's example, the golden
//! `tests/fixtures/ibnetdiscover/rdma-core-man-topology-example.txt`): every switch with one
//! line per cabled port (a channel adapter's port, or another switch's for an uplink), then
//! every channel adapter with the line of its port.
//!
//! What it reaches and how it is cabled is `ib::sim_fabric`, the cabling the simulated
//! `ibdiagnet` scans (`ib::ibdiagnet::sim`), so what this prints for a clean lab is a valid
//! design topology for `ib::ibdiagnet`.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use crate::ib::sim_fabric::{Leaf, Member, SimFabric, Switch};
use crate::machine::guest::{GuestHw, out};
use crate::machine::ports::PortView;

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
    let (fabric, mine) = match SimFabric::discover(host, ports, hw, "ibnetdiscover") {
        Ok(found) => found,
        Err(failure) => return failure,
    };
    let date = date_line(host.now_millis());
    let mut text = format!(
        "#\n# Topology file: generated on {date}\n#\n# Initiated from node {mine} port {mine}\n"
    );
    for leaf in &fabric.leaves {
        text.push_str(&leaf_lines(&fabric, leaf, fabric.spine.as_ref()));
    }
    if let Some(spine) = &fabric.spine {
        text.push_str(&spine_lines(&fabric, spine));
    }
    text.push_str(&adapter_lines(&fabric));
    out(0, text, "")
}

/// A leaf's members.
fn on_leaf<'a>(fabric: &'a SimFabric, leaf: &'a Leaf) -> impl Iterator<Item = &'a Member> {
    leaf.members.iter().filter_map(|i| fabric.member(*i))
}

/// A leaf's block: its header, a line for each member's port, and its uplink to the spine.
fn leaf_lines(fabric: &SimFabric, leaf: &Leaf, spine: Option<&Switch>) -> String {
    let mut text = switch_header(&leaf.switch);
    for m in on_leaf(fabric, leaf) {
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
    let first = on_leaf(fabric, leaf).next();
    if let (Some(spine), Some(uplink), Some(first)) = (spine, leaf.uplink, first) {
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
fn spine_lines(fabric: &SimFabric, spine: &Switch) -> String {
    let mut text = switch_header(spine);
    for leaf in &fabric.leaves {
        let (Some(uplink), Some(first)) = (leaf.uplink, on_leaf(fabric, leaf).next()) else {
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
fn adapter_lines(fabric: &SimFabric) -> String {
    let mut text = String::new();
    for (index, m) in fabric.members.iter().enumerate() {
        let Some(leaf) = fabric.leaf_of(index) else {
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
