//! `ibstatus`: state, LIDs, GID and rate of every RDMA device port, from sysfs.
//!
//! Reads `ibstatus` and `ibstatus DEV[:PORT]` output (tabs or spaces, `unknown` values, a
//! trailing `Fatal error:` line). The grammar is `ibstatus.pest`.

mod parse;
mod types;

pub use types::{IbStatus, IbStatusPort};

/// Parses `ibstatus` output.
///
/// Claims: `Infiniband device 'mlx5_0' port 1 status:` blocks and their fields, or the
/// script's own fatal error line; anything else is refused.
pub fn parse(text: &str) -> Result<IbStatus, crate::ParseError> {
    parse::parse(text)
}
