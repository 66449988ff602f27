//! `gpu`: a GPU server's GPUDirect RDMA readiness. How each GPU reaches every other GPU and NIC
//! (`nvidia-smi topo -m`, grammar `topo.pest`), which NIC a GPU should use and which CPUs and
//! NUMA node to pin its process to (`nearest_nic.rs`), and whether the peer-memory module lets
//! the NICs register GPU memory (`peermem.rs`), and ACS on the PCIe bridges above the GPUs and
//! NICs (`acs.rs`, from `lspci -vvv`); the builtins in `builtins.rs`, what they read in
//! `reads.rs`, the simulated server's `nvidia-smi` and `setpci` in `sim.rs`.

mod acs;
pub mod builtins;
mod command;
mod nearest_nic;
mod parse;
mod peermem;
mod reads;
pub(crate) mod sim;
mod types;

pub use acs::{Acs, AcsBridge, acs_bridges};
pub use nearest_nic::{GpuNic, GpuTopology, nearest_nics};
pub use peermem::Peermem;
pub use types::{LegendEntry, NvidiaSmiTopo, TopoDevice};

/// The namespace the builtins are registered under (each builtin's journal name is
/// `gpu::NAME`).
pub(crate) const NAMESPACE: &str = "gpu";

/// Parses `nvidia-smi topo -m` output.
///
/// Claims: output that starts with the matrix's title row (device columns followed by the
/// affinity titles, `CPU Affinity` at least) and holds one row per column, each with one link
/// cell per column (`X` on its own column), then only the `Legend:` and `NIC Legend:` sections;
/// anything else is refused.
pub fn parse_topo(text: &str) -> Result<NvidiaSmiTopo, crate::ParseError> {
    parse::parse(text)
}
