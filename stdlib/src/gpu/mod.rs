//! `gpu`: what the GPU driver's tools say about a host's GPUs (a parser only): how each GPU
//! reaches every other GPU and NIC (`nvidia-smi topo -m`), which NIC a GPU should use and which
//! CPUs and NUMA node to pin its process to.
//!
//! The grammar is `topo.pest`.

mod parse;
pub(crate) mod sim;
mod types;

pub use types::{LegendEntry, NvidiaSmiTopo, TopoDevice};

/// Parses `nvidia-smi topo -m` output.
///
/// Claims: output that starts with the matrix's title row (device columns followed by the
/// affinity titles, `CPU Affinity` at least) and holds one row per column, each with one link
/// cell per column (`X` on its own column), then only the `Legend:` and `NIC Legend:` sections;
/// anything else is refused.
pub fn parse_topo(text: &str) -> Result<NvidiaSmiTopo, crate::ParseError> {
    parse::parse(text)
}
