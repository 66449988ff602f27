//! The typed result of `ibstat`.

use serde::{Deserialize, Serialize};

/// Every channel adapter `ibstat` printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbStat {
    /// The adapters, in output order.
    pub cas: Vec<IbStatCa>,
    /// `ibwarn:` messages, without the prefix.
    pub warnings: Vec<String>,
    /// The `ibpanic:` message the tool stopped on (without the prefix), if any.
    pub error: Option<String>,
}

/// One `CA 'name'` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbStatCa {
    /// The device name (`mlx5_0`).
    pub name: String,
    /// The node type word (`CA`, `Switch`, `Router`).
    pub node_type: String,
    /// The device type (`MT4124`); `null` when not printed or empty.
    pub ca_type: Option<String>,
    /// The number of ports of the device.
    pub number_of_ports: Option<u32>,
    /// The firmware version as printed (`20.41.1000`).
    pub firmware_version: Option<String>,
    /// The hardware version as printed.
    pub hardware_version: Option<String>,
    /// The node GUID as printed (`0x00155dfffe3411eb`).
    pub node_guid: Option<String>,
    /// The system image GUID as printed.
    pub system_image_guid: Option<String>,
    /// The port blocks (none with `ibstat -s`).
    pub ports: Vec<IbStatPort>,
}

/// One `Port N:` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbStatPort {
    /// The port number.
    pub port: u32,
    /// The logical state (`Active`, `Down`, `Initializing`).
    pub state: Option<String>,
    /// The physical state (`LinkUp`, `Polling`, `Disabled`).
    pub physical_state: Option<String>,
    /// The signalling rate, in Gb/s.
    pub rate_gbps: Option<f64>,
    /// Whether the rate was marked `(FDR10)`.
    pub fdr10: bool,
    /// The effective speed, in Gb/s, when the tool prints it.
    pub effective_speed_gbps: Option<f64>,
    /// The base LID (decimal as printed).
    pub base_lid: Option<u32>,
    /// The LID mask count.
    pub lmc: Option<u32>,
    /// The subnet manager's LID.
    pub sm_lid: Option<u32>,
    /// The capability mask as printed (`0xa651ec48`).
    pub capability_mask: Option<String>,
    /// The port GUID as printed.
    pub port_guid: Option<String>,
    /// `InfiniBand` or `Ethernet`.
    pub link_layer: Option<String>,
}
