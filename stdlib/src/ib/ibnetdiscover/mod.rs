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

pub use types::{FabricNode, FabricPort, RemoteEnd, Topology};

/// Parses `ibnetdiscover` or `ibnetdiscover --ports` output.
pub fn parse(text: &str) -> Result<Topology, crate::ParseError> {
    parse::parse(text)
}
