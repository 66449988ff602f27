//! `mlxconfig`: the firmware configuration (NVRAM) of a ConnectX adapter.
//!
//! [`parse_query`] reads `mlxconfig -d DEV query` (one `Next Boot` column) and
//! `mlxconfig -e -d DEV query` (`Default Current Next Boot`, `*` on modified lines), including
//! the `-E- Failed to query device current configuration` form. [`parse_set`] reads the
//! confirmation of `mlxconfig -d DEV [-y] set KEY=VALUE...` and tells whether the tool asked
//! for a reboot. See `docs/parsers.md`.

mod parse;
mod types;

pub use types::{
    ConfigValue, DeviceHeader, Messages, MlxconfigQuery, MlxconfigSet, Parameter, QueryDevice,
    SetParameter,
};

/// Parses `mlxconfig -d DEV [-e] query` output.
pub fn parse_query(text: &str) -> Result<MlxconfigQuery, crate::ParseError> {
    parse::parse_query(text)
}

/// Parses `mlxconfig -d DEV [-y] set KEY=VALUE...` output.
pub fn parse_set(text: &str) -> Result<MlxconfigSet, crate::ParseError> {
    parse::parse_set(text)
}

/// Registers the `mlxconfig::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
