//! The typed result of `ibdev2netdev`.

use serde::{Deserialize, Serialize};

/// Every mapping `ibdev2netdev` printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ibdev2Netdev {
    /// One entry per RDMA device port, in output order.
    pub mappings: Vec<DeviceMapping>,
}

/// One RDMA device port and the network interface bound to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceMapping {
    /// The PCI address (`-v`, `0000:3b:00.0`).
    pub pci_address: Option<String>,
    /// The RDMA device (`mlx5_0`).
    pub rdma_device: String,
    /// The port number on the RDMA device.
    pub port: u32,
    /// The network interface (`ib0`, `ens224f1`).
    pub netdev: String,
    /// The interface carrier state (`Up`, `Down`); `null` when not printed (old style, `()`).
    pub link_state: Option<String>,
    /// `-v`: the PCI device as `MT<device id>` (`MT4119`).
    pub device_id: Option<String>,
    /// `-v`: the board part number from the VPD (`MCX556A-ECAT`); `null` when printed `NA`.
    pub part_number: Option<String>,
    /// `-v`: the VPD description (`CX556A - ConnectX-5 QSFP28`); `null` when empty.
    pub description: Option<String>,
    /// `-v`: the firmware version (`16.32.1010`).
    pub firmware: Option<String>,
    /// `-v`: the RDMA port state (`ACTIVE`, `DOWN`), padding removed.
    pub port_state: Option<String>,
}
