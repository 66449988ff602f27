//! `ibstat`: channel adapters (type, firmware, GUIDs) and their ports (state, rate, LIDs).
//!
//! Reads `ibstat`, `ibstat -s` (CA fields only) and `ibstat CA PORT`, indented with tabs or
//! spaces, with `ibwarn:` lines and a trailing `ibpanic:` line kept in the result. The grammar is
//! `ibstat.pest`.

mod parse;
mod types;

pub use types::{IbStat, IbStatCa, IbStatPort};

/// Parses `ibstat` output.
pub fn parse(text: &str) -> Result<IbStat, crate::ParseError> {
    parse::parse(text)
}
