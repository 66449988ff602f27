//! `flint query`: what the firmware image burnt on a ConnectX adapter says about itself.
//!
//! [`parse_query`] reads `flint -d DEV query` and `flint -d DEV query full`: versions, release
//! date, expansion ROMs, the GUID and MAC table (FS3/FS4 `UID GuidsNumber` or FS2
//! `Node Port1 Port2 Sys image`), VSD, PSID and the security attributes. See
//! `docs/parsers.md`.

pub mod builtins;
mod command;
mod sim;
pub(crate) use sim::Flint;
mod parse;
mod reads;
pub use reads::{FlashImage, Predicted};
mod types;

pub use types::{FlintQuery, PortIds, RomInfo, Uid};

/// Parses `flint -d DEV query [full]` output.
pub fn parse_query(text: &str) -> Result<FlintQuery, crate::ParseError> {
    parse::parse_query(text)
}

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`flint::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "flint";
