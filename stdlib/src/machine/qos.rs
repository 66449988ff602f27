//! A simulated Linux host's QoS settings of its RoCE ports (layer 1): what `mlnx_qos` sets and
//! prints (trust state and the DSCP map, PFC, the traffic classes), the ECN sysfs switches and
//! RDMA-CM's default ToS; and the PFC pause frames a port received, which `ethtool -S` prints.
//! The `qos` printer keeps them; `cat` of the sysfs files and `ethtool` read them here.
//!
//! All of it is runtime state, as on a real host: the kernel keeps it in the driver, so a
//! reboot or a driver reload (a new OFED driver generation) brings the defaults back.
//!
//! The defaults are mlx5's after the driver loads (`mlx5e_dcbnl_initialize`, `mlx5e_ets_init`):
//! trust `pcp` with no DSCP map, PFC off, priority 0 in TC 1 and 1 in TC 0 (the others in their
//! own), every TC `vendor` with no share, cable length 7 m; ECN's notification and reaction
//! points enabled on every priority (the firmware's `ROCE_CC_PRIO_MASK_P1` default 255); RDMA-CM's
//! default ToS 0.

use std::collections::BTreeMap;

use cairn_runtime::sim::SimContext;

use crate::machine::ofed::OfedState;

/// The state slot of the `qos` printer.
pub(crate) const QOS_SLOT: &str = "mlnx_qos";

/// A traffic class's transmission selection algorithm (`--tsa`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Tsa {
    Strict,
    Ets,
    Vendor,
}

/// One port's settings, as `mlnx_qos` reads them back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PortQos {
    /// The DCB application table's DSCP entries `(dscp, priority)`, newest first as the kernel
    /// lists them; trust is `dscp` exactly when there is one (mlx5 switches it with the table).
    pub(crate) dscp2prio: Vec<(u8, u8)>,
    pub(crate) pfc: [bool; 8],
    /// Each priority's traffic class.
    pub(crate) prio_tc: [u8; 8],
    pub(crate) tsa: [Tsa; 8],
    pub(crate) tcbw: [u8; 8],
    /// `ecn/roce_np/enable/N`: the port sends CNPs for CE-marked packets of priority N.
    pub(crate) ecn_np: [bool; 8],
    /// `ecn/roce_rp/enable/N`: the port slows down on CNPs of priority N.
    pub(crate) ecn_rp: [bool; 8],
}

impl Default for PortQos {
    fn default() -> Self {
        Self {
            dscp2prio: Vec::new(),
            pfc: [false; 8],
            prio_tc: [1, 0, 2, 3, 4, 5, 6, 7],
            tsa: [Tsa::Vendor; 8],
            tcbw: [0; 8],
            ecn_np: [true; 8],
            ecn_rp: [true; 8],
        }
    }
}

impl PortQos {
    /// `pcp` or `dscp`.
    pub(crate) fn trust(&self) -> &'static str {
        if self.dscp2prio.is_empty() {
            "pcp"
        } else {
            "dscp"
        }
    }

    /// `--trust`: `dscp` fills the firmware's default map (DSCP N to priority N >> 3) unless
    /// trust is `dscp` already; `pcp` empties it (mlnx-tools' `Trust.setTrust`).
    pub(crate) fn set_trust(&mut self, trust: &str) {
        if trust == self.trust() {
            return;
        }
        self.dscp2prio = if trust == "dscp" {
            (0..64u8).rev().map(|dscp| (dscp, dscp >> 3)).collect()
        } else {
            Vec::new()
        };
    }

    /// `--dscp2prio set,DSCP,PRIO`: the old entry of the DSCP goes, the new one comes first.
    pub(crate) fn set_dscp(&mut self, dscp: u8, prio: u8) {
        if self.dscp2prio.contains(&(dscp, prio)) {
            return;
        }
        self.dscp2prio.retain(|(d, _)| *d != dscp);
        self.dscp2prio.insert(0, (dscp, prio));
    }
}

/// The `qos` printer's state: the settings made since the drivers last loaded.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct QosState {
    /// The OFED driver generation the settings were made under.
    pub(crate) generation: u64,
    /// By interface name.
    pub(crate) ports: BTreeMap<String, PortQos>,
    /// RDMA-CM's default ToS by `DEVICE/PORT`.
    pub(crate) roce_tos: BTreeMap<String, u8>,
    /// The host's perftest client runs when the settings last changed (or the drivers loaded).
    #[serde(default)]
    pub(crate) traffic_seen: u64,
    /// Pause frames each port received per priority before that, by interface name.
    #[serde(default)]
    pub(crate) pauses: BTreeMap<String, [u64; 8]>,
}

impl QosState {
    /// One interface's settings, the defaults until set.
    pub(crate) fn port(&self, ifname: &str) -> PortQos {
        self.ports.get(ifname).cloned().unwrap_or_default()
    }

    /// One interface's settings, to change.
    pub(crate) fn port_mut(&mut self, ifname: &str) -> &mut PortQos {
        self.ports.entry(ifname.to_owned()).or_default()
    }
}

/// The host's QoS settings now: those saved under the drivers loaded now, else the defaults
/// (with no traffic counted before now).
pub(crate) fn load(host: &SimContext<'_>) -> QosState {
    let generation = driver_generation(host);
    host.tool_state(QOS_SLOT)
        .and_then(|v| serde_json::from_value::<QosState>(v.clone()).ok())
        .filter(|state| state.generation == generation)
        .unwrap_or_else(|| QosState {
            generation,
            traffic_seen: traffic_runs(host),
            ..QosState::default()
        })
}

/// Saves the settings, under the drivers loaded now (only the `qos` printer, whose slot it is).
pub(crate) fn save(host: &mut SimContext<'_>, mut state: QosState) {
    state.generation = driver_generation(host);
    let _ = host.save_state(&state);
}

/// The OFED driver generation loaded now (0 without OFED).
fn driver_generation(host: &SimContext<'_>) -> u64 {
    host.tool_state("ofed")
        .and_then(|v| serde_json::from_value::<OfedState>(v.clone()).ok())
        .map_or(0, |ofed| ofed.generation)
}

/// The perftest printer's state slot (its first program), where it counts its client runs.
const PERFTEST_SLOT: &str = "ib_send_bw";

/// The pause frames one run of RoCE traffic brings a sender on a lossless priority.
const PAUSES_PER_RUN: u64 = 1_250;

/// The perftest client runs of the host so far.
pub(crate) fn traffic_runs(host: &SimContext<'_>) -> u64 {
    host.tool_state(PERFTEST_SLOT)
        .and_then(|state| state["runs"].as_u64())
        .unwrap_or(0)
}

/// The priority a port's RoCE traffic takes: under trust `dscp` the one its RDMA-CM ToS's DSCP
/// maps to, under trust `pcp` priority 0 (untagged).
fn roce_priority(state: &QosState, ifname: &str, device: &str) -> usize {
    let port = state.port(ifname);
    let dscp = state
        .roce_tos
        .get(&format!("{device}/1"))
        .copied()
        .unwrap_or(0)
        >> 2;
    port.dscp2prio
        .iter()
        .find(|(d, _)| *d == dscp)
        .map_or(0, |(_, prio)| usize::from(*prio))
}

/// The pause frames a RoCE port (`ifname`, RDMA device `device`) received per priority since
/// the drivers loaded: those counted before the last settings change, and for the host's
/// perftest runs since, on the priority its traffic takes when PFC is on there (the congested
/// receiver pauses a lossless priority only).
pub(crate) fn pause_frames(
    host: &SimContext<'_>,
    state: &QosState,
    ifname: &str,
    device: &str,
) -> [u64; 8] {
    let mut pauses = state.pauses.get(ifname).copied().unwrap_or_default();
    let runs = traffic_runs(host).saturating_sub(state.traffic_seen);
    let prio = roce_priority(state, ifname, device);
    if state.port(ifname).pfc[prio] {
        pauses[prio] += runs * PAUSES_PER_RUN;
    }
    pauses
}

/// Counts the traffic so far under the settings in effect, before they change (the `qos`
/// printer calls it before every change).
pub(crate) fn settle_traffic(host: &SimContext<'_>, state: &mut QosState) {
    let ports: Vec<(String, String)> = crate::machine::interfaces::own_interfaces(host)
        .into_iter()
        .filter(|i| i.link_type == "ether")
        .filter_map(|i| Some((i.name, i.rdma?)))
        .collect();
    for (ifname, device) in ports {
        let pauses = pause_frames(host, state, &ifname, &device);
        state.pauses.insert(ifname, pauses);
    }
    state.traffic_seen = traffic_runs(host);
}

/// Which ECN switch a sysfs path names: `/sys/class/net/IF/ecn/roce_np/enable/N` is
/// `(IF, true, N)`, `roce_rp` `(IF, false, N)`.
pub(crate) fn ecn_file(path: &str) -> Option<(&str, bool, usize)> {
    let rest = path.strip_prefix("/sys/class/net/")?;
    let (ifname, rest) = rest.split_once("/ecn/")?;
    let (point, prio) = rest.split_once("/enable/")?;
    let np = match point {
        "roce_np" => true,
        "roce_rp" => false,
        _ => return None,
    };
    let prio: usize = prio.parse().ok().filter(|p| *p < 8)?;
    Some((ifname, np, prio))
}

/// An ECN switch's value now.
pub(crate) fn ecn(state: &QosState, ifname: &str, np: bool, prio: usize) -> bool {
    let port = state.port(ifname);
    if np {
        port.ecn_np[prio]
    } else {
        port.ecn_rp[prio]
    }
}
