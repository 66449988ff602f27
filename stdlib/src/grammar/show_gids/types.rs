//! The typed result of `show_gids`.

use serde::{Deserialize, Serialize};

/// Every GID `show_gids` printed, and its count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShowGids {
    /// One entry per GID row, in output order.
    pub gids: Vec<GidEntry>,
    /// `n_gids_found=N`, the script's own count (it equals the rows); `null` when the capture
    /// ends before it.
    pub n_gids_found: Option<u32>,
}

/// One GID table entry of an RDMA port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GidEntry {
    /// `DEV`: the RDMA device (`mlx5_0`).
    pub device: String,
    /// `PORT`: the port number on the device.
    pub port: u32,
    /// `INDEX`: the GID table index (what perftest's `-x` and NCCL's `NCCL_IB_GID_INDEX` take).
    pub index: u32,
    /// `GID`, as sysfs prints it (`fe80:0000:0000:0000:0e42:a1ff:fe5d:4db8`).
    pub gid: String,
    /// `IPv4`: the address of an IPv4-mapped GID; `null` for the others.
    pub ipv4: Option<String>,
    /// `VER`: the RoCE version (`v1`, `v2`; `v1` also on InfiniBand); `null` when not printed.
    pub ver: Option<String>,
    /// The second `DEV`: the network interface (`ens1f0`); `null` when empty (InfiniBand).
    pub netdev: Option<String>,
}
