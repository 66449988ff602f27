//! `ibstatus`: state, LIDs, GID and rate of every RDMA device port, from sysfs.
//!
//! Reads `ibstatus` and `ibstatus DEV[:PORT]` output (tabs or spaces, `unknown` values, a
//! trailing `Fatal error:` line). The grammar is `ibstatus.pest`.

mod parse;
mod types;

pub use types::{IbStatus, IbStatusPort};

/// Parses `ibstatus` output.
pub fn parse(text: &str) -> Result<IbStatus, crate::ParseError> {
    parse::parse(text)
}
