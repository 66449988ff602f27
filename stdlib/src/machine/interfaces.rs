//! A simulated guest's network interfaces (layer 1): `lo`, the management `ens192`, the RoCE
//! port's netdev (the inbox driver has it from the first boot) and `ib0` once OFED's drivers are
//! loaded, with the MTU and addresses `ip` set since the drivers last loaded. `ip` and
//! `ibdev2netdev` print them; the RDMA ports (`machine::ports`) and sockperf read them, the
//! guest's own and a peer's.

use std::collections::BTreeMap;

use cairn_runtime::sim::SimContext;
use serde_json::Value;

use crate::machine::guest::{GuestHw, LinkLayer};
use crate::machine::ofed::OfedState;

/// What `ip` changed on one interface.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct LinkSettings {
    pub(crate) mtu: Option<u32>,
    /// `address/prefix`.
    pub(crate) addrs: Vec<String>,
}

/// The `ip` tool's state: settings made since the drivers last loaded.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct NetState {
    /// The OFED driver generation the settings were made under.
    pub(crate) generation: u64,
    pub(crate) links: BTreeMap<String, LinkSettings>,
}

/// One interface as the guest shows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Iface {
    pub(crate) index: u32,
    pub(crate) name: String,
    pub(crate) link_type: &'static str,
    pub(crate) mtu: u32,
    pub(crate) max_mtu: u32,
    pub(crate) address: String,
    pub(crate) broadcast: String,
    /// `(address, prefix)`.
    pub(crate) addrs: Vec<(String, u8)>,
    /// The RDMA device behind it.
    pub(crate) rdma: Option<String>,
}

/// The interfaces of a guest, from its hardware and its OFED and `ip` states (its own, or a
/// peer's read from its state file).
pub(crate) fn interfaces(hw: &GuestHw, ofed: Option<&Value>, net: Option<&Value>) -> Vec<Iface> {
    let ofed: OfedState = ofed
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let net: NetState = net
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let settings = |name: &str| {
        (net.generation == ofed.generation)
            .then(|| net.links.get(name).cloned())
            .flatten()
            .unwrap_or_default()
    };
    let parse_addrs = |s: &LinkSettings| -> Vec<(String, u8)> {
        s.addrs
            .iter()
            .filter_map(|a| {
                let (ip, prefix) = a.split_once('/')?;
                Some((ip.to_owned(), prefix.parse().ok()?))
            })
            .collect()
    };
    let mut list = vec![
        Iface {
            index: 1,
            name: "lo".into(),
            link_type: "loopback",
            mtu: 65536,
            max_mtu: 65536,
            address: "00:00:00:00:00:00".into(),
            broadcast: "00:00:00:00:00:00".into(),
            addrs: vec![("127.0.0.1".into(), 8)],
            rdma: None,
        },
        Iface {
            index: 2,
            name: "ens192".into(),
            link_type: "ether",
            mtu: 1500,
            max_mtu: 9000,
            address: format!("00:50:56:8a:{:02x}:{:02x}", hw.node / 256, hw.node % 256),
            broadcast: "ff:ff:ff:ff:ff:ff".into(),
            addrs: vec![(hw.mgmt_ip.clone(), 24)],
            rdma: None,
        },
    ];
    let mut index = 3;
    let ordered = hw
        .ports
        .iter()
        .filter(|p| p.link_layer == LinkLayer::Ethernet)
        .chain(
            hw.ports
                .iter()
                .filter(|p| p.link_layer == LinkLayer::InfiniBand),
        );
    for port in ordered {
        let s = settings(&port.netdev);
        match port.link_layer {
            LinkLayer::Ethernet => list.push(Iface {
                index,
                name: port.netdev.clone(),
                link_type: "ether",
                mtu: s.mtu.unwrap_or(hw.roce_mtu),
                max_mtu: 9978,
                address: port.mac.clone(),
                broadcast: "ff:ff:ff:ff:ff:ff".into(),
                addrs: parse_addrs(&s),
                rdma: Some(port.device.clone()),
            }),
            LinkLayer::InfiniBand if ofed.loaded => {
                let g = &port.guid;
                let pairs: Vec<&str> = (0..8).filter_map(|i| g.get(i * 2..i * 2 + 2)).collect();
                list.push(Iface {
                    index,
                    name: port.netdev.clone(),
                    link_type: "infiniband",
                    mtu: s.mtu.unwrap_or(4092),
                    max_mtu: 4092,
                    address: format!("00:00:01:c3:fe:80:00:00:00:00:00:00:{}", pairs.join(":")),
                    broadcast: "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff".into(),
                    addrs: parse_addrs(&s),
                    rdma: Some(port.device.clone()),
                });
            }
            LinkLayer::InfiniBand => continue,
        }
        index += 1;
    }
    list
}

/// The guest's own interfaces.
pub(crate) fn own_interfaces(host: &SimContext<'_>) -> Vec<Iface> {
    interfaces(
        &GuestHw::of(host),
        host.tool_state("ofed"),
        host.tool_state("ip"),
    )
}
