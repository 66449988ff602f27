//! `flint query`: what the firmware image burnt on a ConnectX adapter says about itself.
//!
//! [`parse_query`] reads `flint -d DEV query` and `flint -d DEV query full`: versions, release
//! date, expansion ROMs, the GUID and MAC table (FS3/FS4 `UID GuidsNumber` or FS2
//! `Node Port1 Port2 Sys image`), VSD, PSID and the security attributes. See
//! `docs/parsers.md`.

mod parse;
mod types;

pub use types::{FlintQuery, PortIds, RomInfo, Uid};

/// Parses `flint -d DEV query [full]` output.
pub fn parse_query(text: &str) -> Result<FlintQuery, crate::ParseError> {
    parse::parse_query(text)
}

/// Registers the `flint::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
