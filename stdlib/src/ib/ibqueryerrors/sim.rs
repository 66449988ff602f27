//! The simulated `ibqueryerrors`: every port of the fabric the host's IB port reaches
//! (`ib::sim_fabric`) whose error counters are over their threshold, without a threshold
//! file (every threshold 0), in the layout of rdma-core's `ibqueryerrors.c` as the goldens
//! under `tests/fixtures/ibqueryerrors/` show it: `Errors for "NAME"` for a channel adapter,
//! `   GUID 0x... port 1: [SymbolErrorCounter == N] ...` with the GUID unpadded, then the
//! summary and `## (null)` for the thresholds no file gave.
//!
//! A host's cable faults are counted on its channel adapter's port
//! (`machine::link_counters`); switch ports count none.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use crate::ib::sim_fabric::SimFabric;
use crate::machine::guest::{GuestHw, out};
use crate::machine::link_counters::{LINK_DOWNED_CEILING, SYMBOL_ERROR_CEILING};
use crate::machine::ports::PortView;

/// `ibqueryerrors` on a guest whose IB ports are `ports`.
pub(crate) fn run(host: &SimContext<'_>, ports: &[PortView], hw: &GuestHw) -> ExecOutput {
    let (fabric, _) = match SimFabric::discover(host, ports, hw, "ibqueryerrors") {
        Ok(found) => found,
        Err(failure) => return failure,
    };
    let now = host.now_millis();
    let mut text = String::new();
    let mut bad = 0;
    for m in &fabric.members {
        let c = m.counters(now);
        let counters: Vec<String> = [
            (
                "SymbolErrorCounter",
                c.symbol_errors.min(SYMBOL_ERROR_CEILING),
            ),
            ("LinkDownedCounter", c.link_downs.min(LINK_DOWNED_CEILING)),
        ]
        .into_iter()
        .filter(|(_, v)| *v > 0)
        .map(|(name, v)| format!("[{name} == {v}]"))
        .collect();
        if counters.is_empty() {
            continue;
        }
        bad += 1;
        text.push_str(&format!(
            "Errors for \"{}\"\n   GUID 0x{} port 1: {}\n",
            m.name,
            m.guid.trim_start_matches('0'),
            counters.join(" ")
        ));
    }
    let switches: Vec<u32> = fabric
        .leaves
        .iter()
        .map(|l| l.switch.ports)
        .chain(fabric.spine.iter().map(|s| s.ports))
        .collect();
    let nodes = fabric.members.len() + switches.len();
    let checked = fabric.members.len() + switches.iter().map(|p| *p as usize).sum::<usize>();
    text.push_str(&format!(
        "\n## Summary: {nodes} nodes checked, {bad} bad nodes found\n##          {checked} ports checked, {bad} ports have errors beyond threshold\n## (null)\n## Suppressed:\n"
    ));
    out(0, text, "")
}
