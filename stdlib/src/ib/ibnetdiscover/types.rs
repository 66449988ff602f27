//! The typed result of `ibnetdiscover`.

use serde::{Deserialize, Serialize};

/// The fabric `ibnetdiscover` discovered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// `topology` for the default topology file, `ports` for `ibnetdiscover --ports`.
    pub layout: String,
    /// The switches, in output order.
    pub switches: Vec<FabricNode>,
    /// The channel adapters (HCAs), in output order.
    pub channel_adapters: Vec<FabricNode>,
    /// The routers, in output order.
    pub routers: Vec<FabricNode>,
    /// `ibwarn:` messages, without the prefix.
    pub warnings: Vec<String>,
    /// Whether the output carries an elision line (`...omitted`) left by whoever published
    /// it: the node list is then incomplete.
    pub elided: bool,
    /// The topology file's header comments; all null for `--ports`, which prints none.
    #[serde(default)]
    pub header: TopologyHeader,
}

/// The header `ibnetdiscover` prints above a topology file (infiniband-diags `dump_topology`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TopologyHeader {
    /// `# Topology file: generated on DATE`: the date as printed (`Fri Jul 19 02:49:25 2024`).
    pub generated: Option<String>,
    /// `# Max of N hops discovered` (older) or `# Reported max hops discovered: N` (`-m`).
    pub max_hops_discovered: Option<u32>,
    /// `# Total MADs used: N` (`-m`).
    pub total_mads_used: Option<u64>,
    /// `# Initiated from node GUID port GUID`: the node GUID of the host that ran the
    /// discovery, as printed (16 hex digits).
    pub initiated_from_node: Option<String>,
    /// The port GUID of that line, as printed.
    pub initiated_from_port: Option<String>,
}

/// A switch, channel adapter or router.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FabricNode {
    /// The quoted node id of the topology file (`S-0008f10400410015`, `H-...`).
    pub node_ref: Option<String>,
    /// The node GUID (`switchguid=`/`caguid=`/`rtguid=` as printed); with `--ports`, the GUID
    /// printed on a switch's lines.
    pub guid: Option<String>,
    /// The port GUID in parentheses after `switchguid=` (switch port 0).
    pub port_guid: Option<String>,
    /// The node description (`"MF0;...:MQM9700/U1"`, `"node005 mlx5_2"`).
    pub description: Option<String>,
    /// `vendid=` as printed (`0x2c9`).
    pub vendor_id: Option<String>,
    /// `devid=` as printed (`0xd2f2`).
    pub device_id: Option<String>,
    /// `sysimgguid=` as printed.
    pub system_image_guid: Option<String>,
    /// The number of ports of the node.
    pub port_count: Option<u32>,
    /// The switch's LID (port 0), or with `--ports` the LID printed on its lines.
    pub lid: Option<u32>,
    /// The switch's LID mask count.
    pub lmc: Option<u32>,
    /// `base` or `enhanced` switch port 0.
    pub port0: Option<String>,
    /// The ports printed for this node (connected ones; with `--ports` also unconnected).
    pub ports: Vec<FabricPort>,
}

/// One port of a node and the other end of its link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FabricPort {
    /// The local port number.
    pub port: u32,
    /// The local port GUID, when printed (CA ports, `--ports`).
    pub guid: Option<String>,
    /// The local port's LID (CA ports, `--ports`).
    pub lid: Option<u32>,
    /// The local port's LID mask count (CA ports).
    pub lmc: Option<u32>,
    /// The active link width (`4x`).
    pub width: Option<String>,
    /// The active link speed (`EDR`, `HDR`, `NDR`; `???` when unknown).
    pub speed: Option<String>,
    /// The node at the other end, if the port is connected.
    pub remote: Option<RemoteEnd>,
}

/// The other end of a link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoteEnd {
    /// `switch`, `ca` or `router`.
    pub kind: String,
    /// The quoted node id (`S-005442ba00003080`) in the topology file.
    pub node_ref: Option<String>,
    /// The remote port GUID, when printed.
    pub guid: Option<String>,
    /// The remote port number.
    pub port: u32,
    /// The remote node description.
    pub description: Option<String>,
    /// The remote LID (a switch's port-0 LID, or a CA port's LID).
    pub lid: Option<u32>,
}
