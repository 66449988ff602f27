//! The simulated `perfquery -x LID PORT`: a port's extended counters (the PortCounters error
//! counters and the 64-bit data counters) in the layout of rdma-core's `perfquery.c` as the
//! golden `tests/fixtures/perfquery/switch-x-two-ports-infiniband-exporter.txt` shows it: the
//! header with both capability masks, then each `Name:` padded with dots to 33 columns.
//!
//! The error counters are the port's cable faults (`machine::link_counters`: a channel
//! adapter's port; a switch's ports count none); the data counters stay 0, as the simulator
//! does not count traffic. Without `-x` it says it simulates only `-x`.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::SimContext;

use crate::ib::sim_fabric::SimFabric;
use crate::machine::guest::{GuestHw, out};
use crate::machine::link_counters::{LINK_DOWNED_CEILING, LinkCounters, SYMBOL_ERROR_CEILING};
use crate::machine::ports::PortView;

/// `perfquery ARGS` on a guest whose IB ports are `ports`.
pub(crate) fn run(
    host: &SimContext<'_>,
    ports: &[PortView],
    hw: &GuestHw,
    args: &[&str],
) -> ExecOutput {
    if !args.contains(&"-x") {
        return out(
            1,
            "",
            "(cairn sim: perfquery is simulated with -x, the extended counters, only)\n",
        );
    }
    let numbers: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let (lid, port) = match numbers.as_slice() {
        [lid, port] => (*lid, *port),
        [lid] => (*lid, 1),
        _ => {
            return out(
                1,
                "",
                "perfquery: iberror: failed: a LID and a port are needed\n",
            );
        }
    };
    let (fabric, _) = match SimFabric::discover(host, ports, hw, "perfquery") {
        Ok(found) => found,
        Err(failure) => return failure,
    };
    let now = host.now_millis();
    let counters = if let Some(m) = fabric.members.iter().find(|m| m.lid == lid) {
        (port == 1).then(|| m.counters(now))
    } else {
        let switch = fabric
            .leaves
            .iter()
            .map(|l| &l.switch)
            .chain(fabric.spine.iter())
            .find(|s| s.lid == lid);
        match switch {
            Some(s) if port <= s.ports => Some(LinkCounters::default()),
            Some(_) => None,
            None => {
                return out(
                    1,
                    "",
                    format!("perfquery: iberror: failed: can't resolve destination port {lid}\n"),
                );
            }
        }
    };
    let Some(counters) = counters else {
        return out(
            1,
            "",
            format!("(cairn sim: Lid {lid} has no port {port})\n"),
        );
    };
    out(0, extended(lid, port, &counters), "")
}

/// The `-x` block of one port.
fn extended(lid: u32, port: u32, c: &LinkCounters) -> String {
    let fields: [(&str, String); 25] = [
        ("PortSelect", port.to_string()),
        ("CounterSelect", "0x0000".into()),
        ("PortXmitData", "0".into()),
        ("PortRcvData", "0".into()),
        ("PortXmitPkts", "0".into()),
        ("PortRcvPkts", "0".into()),
        ("PortUnicastXmitPkts", "0".into()),
        ("PortUnicastRcvPkts", "0".into()),
        ("PortMulticastXmitPkts", "0".into()),
        ("PortMulticastRcvPkts", "0".into()),
        ("CounterSelect2", "0x00000000".into()),
        (
            "SymbolErrorCounter",
            c.symbol_errors.min(SYMBOL_ERROR_CEILING).to_string(),
        ),
        ("LinkErrorRecoveryCounter", "0".into()),
        (
            "LinkDownedCounter",
            c.link_downs.min(LINK_DOWNED_CEILING).to_string(),
        ),
        ("PortRcvErrors", "0".into()),
        ("PortRcvRemotePhysicalErrors", "0".into()),
        ("PortRcvSwitchRelayErrors", "0".into()),
        ("PortXmitDiscards", "0".into()),
        ("PortXmitConstraintErrors", "0".into()),
        ("PortRcvConstraintErrors", "0".into()),
        ("LocalLinkIntegrityErrors", "0".into()),
        ("ExcessiveBufferOverrunErrors", "0".into()),
        ("VL15Dropped", "0".into()),
        ("PortXmitWait", "0".into()),
        ("QP1Dropped", "0".into()),
    ];
    let mut text = format!(
        "# Port extended counters: Lid {lid} port {port} (CapMask: 0x5300 CapMask2: 0x0000002)\n"
    );
    for (name, value) in fields {
        text.push_str(&format!("{:.<33}{value}\n", format!("{name}:")));
    }
    text
}
