//! `ibnetdiscover`: the InfiniBand fabric seen from this port: switches and channel adapters,
//! their GUIDs, LIDs and descriptions, and every link with its remote end, width and speed.
//!
//! Reads the default topology file and the `--ports` (`-p`) one-line-per-port listing. The
//! grammar is `ibnetdiscover.pest`.

mod parse;
pub(crate) mod sim;
#[cfg(test)]
mod tests;
mod types;

pub use types::{FabricNode, FabricPort, RemoteEnd, Topology, TopologyHeader};

/// Parses `ibnetdiscover` or `ibnetdiscover --ports` output.
///
/// Claims: a topology file with at least one node block (`vendid=`, ..., the node line), its
/// header comments read (`# Initiated from node ...`), or `--ports` lines; comments alone or
/// anything else are refused.
pub fn parse(text: &str) -> Result<Topology, crate::ParseError> {
    parse::parse(text)
}
