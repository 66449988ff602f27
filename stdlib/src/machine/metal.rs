//! The simulated bare-metal Linux host's hardware (layer 1): a `sim:rhel8-metal` host has the
//! ConnectX adapters of the ESXi model ([`crate::machine::esxi`], the `adapters` option, one
//! ConnectX-5 by default) in its own PCI slots, MFT on the host, and each adapter port is one of
//! its RDMA devices, whose link layer is the adapter's current `LINK_TYPE_P<n>` (as `mlxconfig`
//! sets it, in effect after a boot or a firmware reset: [`crate::machine::firmware`]).
//!
//! This file composes those pieces into the host's Linux view, [`hardware`]: the guest's
//! hardware from its cabling options (`guest.rs`), with the ports replaced by the adapters' own.
//! The ESXi and guest files below know nothing of bare metal: `host_hardware.rs`, above this
//! file, picks this hardware for a host its model marked ([`METAL_MARK`]), so `ibstatus`,
//! `ibdev2netdev` and perftest see the host's own adapters instead of passed-through ones.

use cairn_runtime::sim::SimContext;

use crate::machine::esxi::{self, Adapter};
use crate::machine::firmware::{NVCONFIG_SLOT, NvConfig, RESET_SLOT};
use crate::machine::guest::{GuestHw, LinkLayer, port_hw};

/// The mark the bare-metal hardware sets when the host is created.
pub(crate) const METAL_MARK: &str = "bare_metal";

/// One ConnectX adapter, a dual-port ConnectX-5 VPI at `3b:00.0/1`: a bare-metal host's default.
pub(crate) const DEFAULT_ADAPTERS: &str = "cx5@3b";

/// Whether the host is bare metal (its ports are its own adapters').
pub(crate) fn is_metal(ctx: &SimContext<'_>) -> bool {
    ctx.is_marked(METAL_MARK)
}

/// A bare-metal host's adapters: its `adapters` option, else [`DEFAULT_ADAPTERS`].
pub(crate) fn adapters(ctx: &SimContext<'_>) -> Vec<Adapter> {
    esxi::adapters_or(ctx, DEFAULT_ADAPTERS)
}

/// One port of the host's own adapters, as its RDMA stack sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OwnPort {
    /// `0000:3b:00.0`.
    pci: String,
    link_layer: LinkLayer,
    speed_gbps: u64,
    /// `Mellanox Technologies MT27800 Family [ConnectX-5]`.
    model: String,
    /// The adapter's mst device and the port's function: where its link type is set.
    mst: String,
    function: u32,
    vpi: bool,
}

/// The link layer a port runs now: a VPI port whose `LINK_TYPE_P<n>` is not ETH(2) is
/// InfiniBand, as the passthrough view reads it; a ConnectX-4 Lx is Ethernet only.
fn link_layer_of(config: &NvConfig, mst: &str, function: u32, vpi: bool) -> LinkLayer {
    let link_type = config
        .devices
        .get(mst)
        .and_then(|params| params.get(&format!("LINK_TYPE_P{}", function + 1)))
        .map_or(2, |v| v.current);
    if vpi && link_type != 2 {
        LinkLayer::InfiniBand
    } else {
        LinkLayer::Ethernet
    }
}

/// A bare-metal peer's NV configuration in effect now, from its tool states; `None` for a host
/// that is not bare metal (no `mlxfwreset` slot). A peer's `guest` slot was saved at its last
/// hardware command, before any reset since: its ports' link layers are read again from here.
fn peer_config(tools: &serde_json::Map<String, serde_json::Value>) -> Option<NvConfig> {
    let resets = tools.get(RESET_SLOT)?;
    Some(crate::machine::firmware::nvconfig_of(
        tools.get(NVCONFIG_SLOT),
        Some(resets),
        &[],
    ))
}

/// Every port of the host's adapters, in PCI order (`mlx5_0` first).
fn ports(ctx: &SimContext<'_>) -> Vec<OwnPort> {
    let config = crate::machine::firmware::nvconfig(ctx);
    esxi::ports_of(adapters(ctx))
        .into_iter()
        .map(|(adapter, function)| OwnPort {
            pci: adapter.full_pci(function),
            link_layer: link_layer_of(&config, &adapter.mst(), function, adapter.kind.vpi),
            speed_gbps: adapter.kind.speed / 1000,
            model: adapter.kind.nic_description.to_owned(),
            mst: adapter.mst(),
            function,
            vpi: adapter.kind.vpi,
        })
        .collect()
}

/// The bare-metal host's hardware as its Linux tools see it: the guest's hardware from its
/// cabling options, with the ports of its own adapters (and their rate, unless `rate` is set).
pub(crate) fn hardware(ctx: &SimContext<'_>) -> GuestHw {
    let mut hw = GuestHw::from_options(ctx.host_name(), |key| ctx.option(key));
    let own = ports(ctx);
    if let (None, Some(first)) = (ctx.option("rate"), own.first()) {
        hw.rate_gbps = u32::try_from(first.speed_gbps).unwrap_or(100);
    }
    hw.ports = own
        .iter()
        .enumerate()
        .map(|(index, port)| {
            let mut hw_port = port_hw(
                &hw.host,
                &hw.roce_ifname,
                index,
                port.link_layer,
                &port.model,
            );
            hw_port.pci.clone_from(&port.pci);
            hw_port.mst.clone_from(&port.mst);
            hw_port.function = port.function;
            hw_port.vpi = port.vpi;
            hw_port
        })
        .collect();
    hw
}

/// A bare-metal peer's hardware as saved in its `guest` slot, with each port's link layer
/// read again from the peer's firmware state (a reset since the slot was saved changes it);
/// a peer that is not bare metal keeps its saved hardware.
pub(crate) fn refresh_peer(hw: &mut GuestHw, tools: &serde_json::Map<String, serde_json::Value>) {
    let Some(config) = peer_config(tools) else {
        return;
    };
    for (index, port) in hw.ports.iter_mut().enumerate() {
        if port.mst.is_empty() {
            continue;
        }
        let layer = link_layer_of(&config, &port.mst, port.function, port.vpi);
        if layer != port.link_layer {
            let mut fresh = port_hw(&hw.host, &hw.roce_ifname, index, layer, &port.model);
            fresh.pci.clone_from(&port.pci);
            fresh.mst = std::mem::take(&mut port.mst);
            fresh.function = port.function;
            fresh.vpi = port.vpi;
            *port = fresh;
        }
    }
}
