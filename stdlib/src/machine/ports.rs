//! A simulated guest's RDMA ports as its tools report them (layer 1): they exist once OFED's
//! drivers are loaded; an InfiniBand port is `ACTIVE` two seconds after the drivers load when
//! the switch runs a subnet manager (its LID assigned), `INIT` without one; an Ethernet (RoCE)
//! port is `ACTIVE` with LID 0 and an active MTU that follows its interface's MTU. The `ib`
//! printers print them; perftest and sockperf read a peer's.

use cairn_runtime::sim::SimContext;
use serde_json::Value;

use crate::machine::guest::{GuestHw, LinkLayer, PortHw, peer_tools};
use crate::machine::interfaces::{Iface, interfaces};
use crate::machine::ofed::OfedState;

/// How long the subnet manager takes to bring a port from INIT to ACTIVE.
const SM_SWEEP_MILLIS: u64 = 2000;

/// One RDMA port as the guest's tools report it.
#[derive(Debug, Clone)]
pub(crate) struct PortView {
    pub(crate) hw: PortHw,
    pub(crate) active: bool,
    pub(crate) lid: u32,
    pub(crate) sm_lid: u32,
    pub(crate) gid: String,
    /// Active MTU in bytes (256 to 4096).
    pub(crate) active_mtu: u32,
    pub(crate) rate_gbps: u32,
    /// The interface's IPv4 address, if any.
    pub(crate) ipv4: Option<String>,
}

/// The largest IB MTU a RoCE port gets from its interface's MTU.
pub(crate) fn roce_active_mtu(if_mtu: u32) -> u32 {
    [4096, 2048, 1024, 512]
        .into_iter()
        .find(|m| if_mtu >= m + 100)
        .unwrap_or(256)
}
/// The ports of a guest given its hardware, OFED state and interfaces; `now` decides whether
/// the subnet manager has swept (`None`: it has).
pub(crate) fn ports(
    hw: &GuestHw,
    ofed: Option<&Value>,
    ifaces: &[Iface],
    now: Option<u64>,
) -> Vec<PortView> {
    let ofed: OfedState = ofed
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    if !ofed.loaded {
        return Vec::new();
    }
    let swept = now.is_none_or(|now| now >= ofed.loaded_millis + SM_SWEEP_MILLIS);
    hw.ports
        .iter()
        .map(|p| {
            let iface = ifaces.iter().find(|i| i.name == p.netdev);
            match p.link_layer {
                LinkLayer::InfiniBand => {
                    let active = hw.subnet_manager && swept;
                    let g = &p.guid;
                    PortView {
                        hw: p.clone(),
                        active,
                        lid: if active { hw.lid } else { 0 },
                        sm_lid: if active { 1 } else { 0 },
                        gid: format!(
                            "fe80:0000:0000:0000:{}:{}:{}:{}",
                            g.get(0..4).unwrap_or("0000"),
                            g.get(4..8).unwrap_or("0000"),
                            g.get(8..12).unwrap_or("0000"),
                            g.get(12..16).unwrap_or("0000")
                        ),
                        active_mtu: 4096,
                        rate_gbps: hw.ib_rate_gbps(),
                        ipv4: iface.and_then(|i| i.addrs.first().map(|a| a.0.clone())),
                    }
                }
                LinkLayer::Ethernet => {
                    let m: Vec<u8> = p
                        .mac
                        .split(':')
                        .filter_map(|b| u8::from_str_radix(b, 16).ok())
                        .collect();
                    let b = |i: usize| m.get(i).copied().unwrap_or(0);
                    let if_mtu = iface.map_or(1500, |i| i.mtu);
                    PortView {
                        hw: p.clone(),
                        active: true,
                        lid: 0,
                        sm_lid: 0,
                        gid: format!(
                            "fe80:0000:0000:0000:{:02x}{:02x}:{:02x}ff:fe{:02x}:{:02x}{:02x}",
                            b(0) ^ 0x02,
                            b(1),
                            b(2),
                            b(3),
                            b(4),
                            b(5)
                        ),
                        active_mtu: roce_active_mtu(if_mtu.min(hw.switch_mtu)),
                        rate_gbps: hw.rate_gbps,
                        ipv4: iface.and_then(|i| i.addrs.first().map(|a| a.0.clone())),
                    }
                }
            }
        })
        .collect()
}

/// The guest's own ports, now.
pub(crate) fn own_ports(host: &SimContext<'_>) -> Vec<PortView> {
    let hw = GuestHw::of(host);
    let ifaces = interfaces(&hw, host.tool_state("ofed"), host.tool_state("ip"));
    ports(
        &hw,
        host.tool_state("ofed"),
        &ifaces,
        Some(host.now_millis()),
    )
}

/// A peer guest's hardware and ports, read from its state; `None` when it is not a guest.
pub(crate) fn peer_ports(
    host: &SimContext<'_>,
    peer: &str,
) -> Option<(GuestHw, Vec<PortView>, serde_json::Map<String, Value>)> {
    let tools = peer_tools(host, peer)?;
    let mut hw: GuestHw = serde_json::from_value(tools.get("guest")?.clone()).ok()?;
    crate::machine::metal::refresh_peer(&mut hw, &tools);
    let ifaces = interfaces(&hw, tools.get("ofed"), tools.get("ip"));
    let ports = ports(&hw, tools.get("ofed"), &ifaces, None);
    Some((hw, ports, tools))
}

/// A guest whose InfiniBand port is up on the fabric another guest sees.
pub(crate) struct FabricMember {
    pub(crate) hw: GuestHw,
    /// Its RDMA device (`mlx5_0`).
    pub(crate) device: String,
    /// Its port's GUID.
    pub(crate) guid: String,
    pub(crate) lid: u32,
    /// When its port came up, on its host's clock (`machine::link_counters`).
    pub(crate) up_millis: u64,
}

/// Every guest up on the fabric `hw`'s active IB port `mine` reaches (its leaf, or every leaf
/// under its spine) with a subnet manager, itself first: what `ibnetdiscover` and `ibdiagnet`
/// both walk.
pub(crate) fn fabric_members(
    host: &SimContext<'_>,
    hw: &GuestHw,
    mine: &PortView,
) -> Vec<FabricMember> {
    let mut members = vec![FabricMember {
        hw: hw.clone(),
        device: mine.hw.device.clone(),
        guid: mine.hw.guid.clone(),
        lid: mine.lid,
        up_millis: crate::machine::link_counters::up_millis(host.tool_state("ofed")),
    }];
    for peer in crate::machine::guest::sibling_hosts(host) {
        if peer == hw.host {
            continue;
        }
        let Some((phw, pports, tools)) = peer_ports(host, &peer) else {
            continue;
        };
        if !phw.subnet_manager || !crate::machine::guest::ib_reachable(hw, &phw) {
            continue;
        }
        if let Some(p) = pports
            .iter()
            .find(|p| p.hw.link_layer == LinkLayer::InfiniBand && p.active)
        {
            members.push(FabricMember {
                device: p.hw.device.clone(),
                guid: p.hw.guid.clone(),
                lid: p.lid,
                up_millis: crate::machine::link_counters::up_millis(tools.get("ofed")),
                hw: phw,
            });
        }
    }
    members
}
