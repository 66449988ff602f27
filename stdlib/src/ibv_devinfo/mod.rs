//! `ibv_devinfo`: verbs devices (firmware, GUIDs, PCI IDs, board ID) and their ports (state,
//! MTU, LIDs, link layer).
//!
//! Reads `ibv_devinfo`, `-d DEV`, `-i PORT` and `-v`, with or without the `Device ports:` line,
//! tab or space indented. The grammar is `ibv_devinfo.pest`.

mod parse;
mod types;

pub use types::{IbvDevice, IbvDevinfo, IbvPort};

/// Parses `ibv_devinfo` output.
pub fn parse(text: &str) -> Result<IbvDevinfo, crate::ParseError> {
    parse::parse(text)
}
