//! The typed result of `rdma link`.

use serde::Serialize;

use crate::grammar::ToolError;

/// Every RDMA port `rdma link` printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdmaLink {
    /// One entry per port line, in printed order.
    pub links: Vec<RdmaPort>,
    /// The tool's own failure (`Wrong device name`): kind `device`, `usage`, `switch` or
    /// `netlink`, the line as printed and its number.
    pub error: Option<ToolError>,
}

/// One RDMA port: its state and, where it has one, its network interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdmaPort {
    /// The device's index, printed first by iproute2 4.14 to 5.4 (`1/1: mlx5_0/1:`); `null`
    /// for the newer `link mlx5_0/1`.
    pub ifindex: Option<u32>,
    /// The RDMA device (`mlx5_0`).
    pub device: String,
    /// The port number on the device.
    pub port: u32,
    /// `subnet_prefix` (InfiniBand), as printed (`fe80:0000:0000:0000`).
    pub subnet_prefix: Option<String>,
    /// `lid`: the port's LID (InfiniBand; `65535` while no subnet manager assigned one).
    pub lid: Option<u32>,
    /// `sm_lid`: the subnet manager's LID.
    pub sm_lid: Option<u32>,
    /// `lmc`.
    pub lmc: Option<u32>,
    /// `state`: `ACTIVE`, `DOWN`, `INIT`, `ARMED`, `ACTIVE_DEFER`, as printed.
    pub state: Option<String>,
    /// `physical_state`: `LINK_UP`, `DISABLED`, `POLLING`, ..., as printed.
    pub physical_state: Option<String>,
    /// `netdev`: the network interface (a RoCE port's, or IPoIB's); `null` when none.
    pub netdev: Option<String>,
    /// `netdev_index` (`rdma -d`).
    pub netdev_index: Option<u32>,
    /// The `caps: <...>` flags (`rdma -d`); `null` when not printed.
    pub caps: Option<Vec<String>>,
}
