//! The typed result of `ibv_devinfo`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Every device `ibv_devinfo` printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbvDevinfo {
    /// The devices, in output order.
    pub devices: Vec<IbvDevice>,
    /// The message printed instead of devices (`No IB devices found`), if any.
    pub error: Option<String>,
}

/// One `hca_id:` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbvDevice {
    /// The device name (`mlx5_0`).
    pub hca_id: String,
    /// The transport name (`InfiniBand`, also for RoCE devices).
    pub transport: Option<String>,
    /// The transport number printed in parentheses (0 is InfiniBand).
    pub transport_code: Option<u32>,
    /// The firmware version as printed (`2.42.5000`).
    pub fw_ver: Option<String>,
    /// The node GUID as printed (`7cfe:9003:00a5:95c0`).
    pub node_guid: Option<String>,
    /// The system image GUID as printed.
    pub sys_image_guid: Option<String>,
    /// The PCI vendor ID as printed (`0x02c9` is Mellanox).
    pub vendor_id: Option<String>,
    /// The PCI device ID in decimal (4099 is ConnectX-3, 4123 is ConnectX-6).
    pub vendor_part_id: Option<u32>,
    /// The hardware revision as printed (`0x0`).
    pub hw_ver: Option<String>,
    /// The board ID / PSID (`MT_1090120019`).
    pub board_id: Option<String>,
    /// The number of physical ports.
    pub phys_port_cnt: Option<u32>,
    /// Other device fields (`-v`), by name, with their text; flag lists under a name are
    /// joined to its value with single spaces.
    pub extra: BTreeMap<String, String>,
    /// The port blocks (one with `-i PORT`).
    pub ports: Vec<IbvPort>,
}

/// One `port: N` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbvPort {
    /// The port number.
    pub port: u32,
    /// The port state name (`PORT_ACTIVE`, `PORT_DOWN`).
    pub state: Option<String>,
    /// The port state number (4 is active).
    pub state_code: Option<u32>,
    /// The largest MTU the port supports, in bytes.
    pub max_mtu_bytes: Option<u32>,
    /// The verbs enum of the largest MTU (5 is 4096).
    pub max_mtu_code: Option<u32>,
    /// The MTU in use, in bytes.
    pub active_mtu_bytes: Option<u32>,
    /// The verbs enum of the MTU in use.
    pub active_mtu_code: Option<u32>,
    /// The subnet manager's LID.
    pub sm_lid: Option<u32>,
    /// The port's LID.
    pub port_lid: Option<u32>,
    /// The LID mask count (printed in hex, `0x00`).
    pub port_lmc: Option<u32>,
    /// `InfiniBand` or `Ethernet` (RoCE).
    pub link_layer: Option<String>,
    /// Other port fields (`-v`: `max_msg_sz`, `active_width`, `GID[  0]`, ...), by name.
    pub extra: BTreeMap<String, String>,
}
