//! The typed result of `nvidia-smi topo -m`.

use serde::{Deserialize, Serialize};

/// The GPU/NIC topology matrix and its legends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvidiaSmiTopo {
    /// The device columns in printed order (`GPU0`, ..., `NIC0`, ...).
    pub columns: Vec<String>,
    /// The affinity titles the driver printed (`CPU Affinity`, `NUMA Affinity`, `GPU NUMA ID`).
    pub affinity_columns: Vec<String>,
    /// One entry per row, in printed order (one per column).
    pub devices: Vec<TopoDevice>,
    /// `Legend:`: each link kind and its meaning, as printed; `[]` when not printed.
    pub legend: Vec<LegendEntry>,
}

/// One device's row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopoDevice {
    /// The row's device (`GPU0`, `NIC3`, `mlx5_0`).
    pub name: String,
    /// The RDMA device the `NIC Legend` names for a `NICn` row (`mlx5_2`); `null` otherwise.
    pub rdma_device: Option<String>,
    /// How it reaches each device column, aligned with `columns` (`X` for itself, `NV12`, `PIX`,
    /// `PXB`, `PHB`, `NODE`, `SYS`).
    pub links: Vec<String>,
    /// `CPU Affinity` (`0-47,96-143`); `null` when not printed or `N/A` (a NIC's row).
    pub cpu_affinity: Option<String>,
    /// `NUMA Affinity` (`0`); `null` when not printed or `N/A`.
    pub numa_affinity: Option<String>,
    /// `GPU NUMA ID`; `null` when not printed or `N/A`.
    pub gpu_numa_id: Option<String>,
}

/// One line of `Legend:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegendEntry {
    /// The link kind (`X`, `SYS`, `NV#`).
    pub code: String,
    /// Its meaning, as printed.
    pub meaning: String,
}
