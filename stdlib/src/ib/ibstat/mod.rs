//! `ibstat`: channel adapters (type, firmware, GUIDs) and their ports (state, rate, LIDs).
//!
//! Reads `ibstat`, `ibstat -s` (CA fields only), `ibstat CA PORT`, `ibstat -l` and `ibstat -p`, indented with tabs or
//! spaces, with `ibwarn:` lines and a trailing `ibpanic:` line kept in the result. The grammar is
//! `ibstat.pest`.

mod lists;
mod parse;
mod types;

pub use lists::{IbStatList, IbStatPortGuids};
pub use types::{IbStat, IbStatCa, IbStatPort};

/// Parses `ibstat -l` output: the channel adapter names.
///
/// Claims: one RDMA device name a line (a letter, then letters, digits, `_`, `-`, `.`) and
/// `ibwarn:`/`ibpanic:` lines; a version, a GUID or JSON is refused.
pub fn parse_list(text: &str) -> Result<IbStatList, crate::ParseError> {
    lists::parse_list(text)
}

/// Parses `ibstat -p` output: every port's GUID.
///
/// Claims: one port GUID a line (`0x` and 16 hex digits) and `ibwarn:`/`ibpanic:` lines;
/// anything else is refused.
pub fn parse_ports(text: &str) -> Result<IbStatPortGuids, crate::ParseError> {
    lists::parse_ports(text)
}

/// Parses `ibstat` output.
///
/// Claims: `CA 'mlx5_0'` blocks (or `CA: 'mlx5_0'` and one port) with their fields and
/// `ibwarn:`/`ibpanic:` lines; anything else is refused.
pub fn parse(text: &str) -> Result<IbStat, crate::ParseError> {
    parse::parse(text)
}
