//! The simulated `iblinkinfo`: every node of the fabric the host's IB port reaches
//! (`ib::sim_fabric`), each channel adapter's port then each switch's ports, in the default
//! layout of rdma-core's `iblinkinfo.c` as the golden
//! `tests/fixtures/iblinkinfo/sb7700-edr-two-hosts-linpack-notes.txt` shows it: `CA: NAME:`
//! with the port GUID before the LID, `Switch: 0xGUID NAME:`, a port that is down as
//! `==(                Down/ Polling)==>             [  ] "" ( )`. A port trained narrower
//! than its rate's width (`link_width=1X`) says what it could be, `(Could be 4X )` as the
//! `-l` golden's `(Could be 12X Could be 10.0 Gbps)` joins the width's and the speed's words.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use crate::ib::sim_fabric::{Member, SimFabric, Switch, lane_speed_text};
use crate::machine::guest::{GuestHw, out};
use crate::machine::ports::PortView;

/// A port that is down, from its `==(` on.
const DOWN: &str = "==(                Down/ Polling)==>             [  ] \"\" ( )";

/// `iblinkinfo` on a guest whose IB ports are `ports`.
pub(crate) fn run(host: &SimContext<'_>, ports: &[PortView], hw: &GuestHw) -> ExecOutput {
    let (fabric, _) = match SimFabric::discover(host, ports, hw, "iblinkinfo") {
        Ok(found) => found,
        Err(failure) => return failure,
    };
    let mut text = String::new();
    for (index, m) in fabric.members.iter().enumerate() {
        let Some(leaf) = fabric.leaf_of(index) else {
            continue;
        };
        text.push_str(&format!(
            "CA: {}:\n      0x{}{}\n",
            m.name,
            m.guid,
            link(m.lid, 1, m, leaf.lid, m.hw.node, &leaf.desc)
        ));
    }
    for leaf in &fabric.leaves {
        let mut cabled: Vec<(u32, String)> = leaf
            .members
            .iter()
            .filter_map(|i| fabric.member(*i))
            .map(|m| {
                (
                    m.hw.node,
                    link(leaf.switch.lid, m.hw.node, m, m.lid, 1, &m.name),
                )
            })
            .collect();
        if let (Some(spine), Some(uplink)) = (&fabric.spine, leaf.uplink) {
            let first = leaf.members.first().and_then(|i| fabric.member(*i));
            if let Some(first) = first {
                let to_spine = trunk(leaf.switch.lid, uplink, first, spine, leaf.switch.lid - 1);
                cabled.push((uplink, to_spine));
            }
        }
        text.push_str(&switch_block(&leaf.switch, &cabled));
    }
    if let Some(spine) = &fabric.spine {
        let mut cabled = Vec::new();
        for leaf in &fabric.leaves {
            let first = leaf.members.first().and_then(|i| fabric.member(*i));
            if let (Some(uplink), Some(first)) = (leaf.uplink, first) {
                let port = leaf.switch.lid - 1;
                cabled.push((port, trunk(spine.lid, port, first, &leaf.switch, uplink)));
            }
        }
        text.push_str(&switch_block(spine, &cabled));
    }
    out(0, text, "")
}

/// A switch's header and a line for each of its ports, `cabled` ones with their link.
fn switch_block(switch: &Switch, cabled: &[(u32, String)]) -> String {
    let mut text = format!("Switch: 0x{} {}:\n", switch.guid, switch.desc);
    for port in 1..=switch.ports {
        match cabled.iter().find(|(p, _)| *p == port) {
            Some((_, line)) => text.push_str(&format!("     {line}\n")),
            None => text.push_str(&format!("      {:>6} {port:>4}[  ] {DOWN}\n", switch.lid)),
        }
    }
    text
}

/// A port's link to its peer from ` LID PORT[  ] ==(` on: `iblinkinfo.c`'s `" %6d %4d[%2s]
/// ==(%3s %18s %6s/%8s)==>  %6d %4d[%2s] \"%s\" (%s %s)"`, as the golden's lines space it.
fn link(lid: u32, port: u32, member: &Member, peer_lid: u32, peer_port: u32, peer: &str) -> String {
    let (width, could_be) = member.width();
    format!(
        " {lid:>6} {port:>4}[  ] ==({width:>3} {:>18} Active/  LinkUp)==>  {peer_lid:>6} {peer_port:>4}[  ] \"{peer}\" ({} )",
        lane_speed_text(&member.hw),
        could_be
            .map(|w| format!("Could be {w}"))
            .unwrap_or_default()
    )
}

/// A leaf's uplink to the spine (or the spine's port to a leaf): the rate's own width.
fn trunk(lid: u32, port: u32, first: &Member, peer: &Switch, peer_port: u32) -> String {
    let (lanes, _) = first.hw.nominal();
    format!(
        " {lid:>6} {port:>4}[  ] ==({:>3} {:>18} Active/  LinkUp)==>  {:>6} {peer_port:>4}[  ] \"{}\" ( )",
        format!("{lanes}X"),
        lane_speed_text(&first.hw),
        peer.lid,
        peer.desc
    )
}
