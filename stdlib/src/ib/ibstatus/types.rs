//! The typed result of `ibstatus`.

use serde::{Deserialize, Serialize};

/// Every port `ibstatus` printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbStatus {
    /// One entry per device port, in output order.
    pub ports: Vec<IbStatusPort>,
    /// The message of a `Fatal error:` line, if the script stopped on one.
    pub error: Option<String>,
}

/// One `Infiniband device '...' port N status:` block.
///
/// A field is `null` when the script printed `unknown` for it (sysfs had no value) or did not
/// print it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbStatusPort {
    /// The RDMA device name (`mlx5_0`).
    pub device: String,
    /// The port number on that device.
    pub port: u32,
    /// The port's GID at index 0 as printed (`fe80:0000:...`).
    pub default_gid: Option<String>,
    /// The port's base LID (printed in hex, `0x14` is 20).
    pub base_lid: Option<u32>,
    /// The LID of the subnet manager (printed in hex).
    pub sm_lid: Option<u32>,
    /// The logical port state name (`ACTIVE`, `DOWN`, `INIT`).
    pub state: Option<String>,
    /// The logical port state number (4 is ACTIVE).
    pub state_code: Option<u32>,
    /// The physical port state name (`LinkUp`, `Polling`, `Disabled`).
    pub phys_state: Option<String>,
    /// The physical port state number (5 is LinkUp).
    pub phys_state_code: Option<u32>,
    /// The signalling rate, in Gb/s.
    pub rate_gbps: Option<f64>,
    /// The width and speed text in the parentheses after the rate (`4X EDR`).
    pub rate_text: Option<String>,
    /// The link width (`4X`, `2X`).
    pub width: Option<String>,
    /// The link speed (`EDR`, `HDR`, `NDR`).
    pub speed: Option<String>,
    /// `InfiniBand` or `Ethernet` (RoCE).
    pub link_layer: Option<String>,
}
