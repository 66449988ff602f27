//! The simulated bare-metal Linux host's hardware (layer 1): a `sim:rhel8-metal` host has the
//! ConnectX adapters of the ESXi model ([`crate::machine::esxi`], the `adapters` option) in its
//! own PCI slots, MFT on the host, and each adapter port is one of its RDMA devices, whose link
//! layer is the adapter's current `LINK_TYPE_P<n>` (as `mlxconfig` sets it, in effect after a
//! boot or a firmware reset: [`crate::machine::firmware`]). The guest tools' printers read the
//! ports through [`crate::machine::guest::GuestHw::of`], so `ibstatus`, `ibdev2netdev` and
//! perftest see the host's own adapters instead of passed-through ones.

use cairn_runtime::sim::SimContext;

use crate::machine::esxi;
use crate::machine::firmware::{NVCONFIG_SLOT, NvConfig, RESET_SLOT};
use crate::machine::guest::LinkLayer;

/// The mark the bare-metal hardware sets when the host is created.
pub(crate) const METAL_MARK: &str = "bare_metal";

/// One ConnectX adapter, a dual-port ConnectX-5 VPI at `3b:00.0/1`: a bare-metal host's default.
pub(crate) const DEFAULT_ADAPTERS: &str = "cx5@3b";

/// Whether the host is bare metal (its ports are its own adapters').
pub(crate) fn is_metal(ctx: &SimContext<'_>) -> bool {
    ctx.is_marked(METAL_MARK)
}

/// One port of the host's own adapters, as its RDMA stack sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OwnPort {
    /// `0000:3b:00.0`.
    pub(crate) pci: String,
    pub(crate) link_layer: LinkLayer,
    pub(crate) speed_gbps: u64,
    /// `Mellanox Technologies MT27800 Family [ConnectX-5]`.
    pub(crate) model: String,
    /// The adapter's mst device and the port's function: where its link type is set.
    pub(crate) mst: String,
    pub(crate) function: u32,
    pub(crate) vpi: bool,
}

/// The link layer a port runs now: a VPI port whose `LINK_TYPE_P<n>` is not ETH(2) is
/// InfiniBand, as the passthrough view reads it; a ConnectX-4 Lx is Ethernet only.
pub(crate) fn link_layer_of(config: &NvConfig, mst: &str, function: u32, vpi: bool) -> LinkLayer {
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
pub(crate) fn peer_config(tools: &serde_json::Map<String, serde_json::Value>) -> Option<NvConfig> {
    let resets = tools.get(RESET_SLOT)?;
    Some(crate::machine::firmware::nvconfig_of(
        tools.get(NVCONFIG_SLOT),
        Some(resets),
        &[],
    ))
}

/// Every port of the host's adapters, in PCI order (`mlx5_0` first).
pub(crate) fn ports(ctx: &SimContext<'_>) -> Vec<OwnPort> {
    let config = crate::machine::firmware::nvconfig(ctx);
    esxi::ports(ctx)
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
