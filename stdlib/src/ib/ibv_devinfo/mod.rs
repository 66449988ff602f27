//! `ibv_devinfo`: verbs devices (firmware, GUIDs, PCI IDs, board ID) and their ports (state,
//! MTU, LIDs, link layer).
//!
//! Reads `ibv_devinfo`, `-d DEV`, `-i PORT` and `-v`, with or without the `Device ports:` line,
//! tab or space indented, and `-l` (the device names). The grammar is `ibv_devinfo.pest`.

mod list;
mod parse;
mod types;

pub use list::IbvDeviceList;
pub use types::{IbvDevice, IbvDevinfo, IbvPort};

/// Parses `ibv_devinfo -l` output: the device names.
///
/// Claims: the `N HCAs found:` line and the names under it, or the tool's error line; anything
/// else is refused.
pub fn parse_list(text: &str) -> Result<IbvDeviceList, crate::ParseError> {
    list::parse_list(text)
}

/// Parses `ibv_devinfo` output.
///
/// Claims: `hca_id:` blocks with their fields and ports, or the tool's error line (`No IB
/// devices found`); anything else is refused.
pub fn parse(text: &str) -> Result<IbvDevinfo, crate::ParseError> {
    parse::parse(text)
}
