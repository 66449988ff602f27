//! `qos`: what a lossless RoCE fabric needs of each host's adapter ports (trust state, PFC on
//! the RoCE priority, the traffic classes and their ETS shares, the DSCP map, ECN, RDMA-CM's
//! ToS): the `qos::` builtins that read and set them, the parser of what `mlnx_qos` prints and
//! the simulated tools.
//!
//! `mlnx_qos -i IFACE` is mlnx-tools' (MLNX_OFED and DOCA-OFED) `python/mlnx_qos` and
//! `cma_roce_tos` its `sbin/cma_roce_tos` (github.com/Mellanox/mlnx-tools); the grammar is
//! `mlnx_qos.pest`. The ECN switches are the mlx5 driver's sysfs files
//! (`/sys/class/net/IFACE/ecn/roce_np|roce_rp/enable/PRIO`, NVIDIA's "Explicit Congestion
//! Notification" page of the MLNX_OFED and DOCA manuals).

pub mod builtins;
pub(crate) mod command;
mod parse;
mod plan;
mod reads;
pub(crate) mod sim;
mod types;
pub(crate) mod wanted;

/// The namespace the builtins are registered under; with the name a script calls, it is each
/// builtin's journal name (`qos::set`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "qos";

pub use types::{DscpToPriority, MlnxQos, PfcPriority, TrafficClass};

/// Parses `mlnx_qos -i IFACE [--trust ...|--pfc ...|...]` output (every setting command prints
/// the whole configuration after applying it).
///
/// Claims: output holding the tool's `PFC configuration:` table (its `priority` row of eight
/// columns and its `enabled` row), after only the lines mlnx_qos prints before it (`DCBX mode:`,
/// `Priority trust state:`, the `dscp2prio mapping:`, `Receive buffer size (bytes):`, `Cable
/// len:`, a line for each feature the device lacks) and followed only by its traffic classes;
/// or the tool's own failure lines alone (`ETS features are not supported on your system`, a
/// bad command line and its `Usage:` line), which are the result's `error`. Anything else is
/// refused, told the line mlnx_qos starts with.
pub fn parse(text: &str) -> Result<MlnxQos, crate::ParseError> {
    parse::parse(text)
}
