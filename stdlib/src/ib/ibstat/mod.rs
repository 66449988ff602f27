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
pub fn parse_list(text: &str) -> Result<IbStatList, crate::ParseError> {
    lists::parse_list(text)
}

/// Parses `ibstat -p` output: every port's GUID.
pub fn parse_ports(text: &str) -> Result<IbStatPortGuids, crate::ParseError> {
    lists::parse_ports(text)
}

/// Parses `ibstat` output.
pub fn parse(text: &str) -> Result<IbStat, crate::ParseError> {
    parse::parse(text)
}
