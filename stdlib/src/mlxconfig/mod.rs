//! `mlxconfig`: the firmware configuration (NVRAM) of a ConnectX adapter.
//!
//! [`parse_query`] reads `mlxconfig -d DEV query` (one `Next Boot` column) and
//! `mlxconfig -e -d DEV query` (`Default Current Next Boot`, `*` on modified lines), including
//! the `-E- Failed to query device current configuration` form. [`parse_set`] reads the
//! confirmation of `mlxconfig -d DEV [-y] set KEY=VALUE...` and tells whether the tool asked
//! for a reboot. See `docs/parsers.md`.

pub mod builtins;
mod command;
pub(crate) mod sim;
pub(crate) use sim::Mlxconfig;
mod parse;
mod reads;
mod types;

pub use types::{
    ConfigValue, DeviceHeader, DeviceQuery, Messages, MlxconfigQuery, MlxconfigSet, ParamValues,
    Parameter, QueryDevice, SetParameter,
};

/// Parses `mlxconfig -d DEV [-e] query` output.
pub fn parse_query(text: &str) -> Result<MlxconfigQuery, crate::ParseError> {
    parse::parse_query(text)
}

/// Parses `mlxconfig -d DEV [-y] set KEY=VALUE...` output.
pub fn parse_set(text: &str) -> Result<MlxconfigSet, crate::ParseError> {
    parse::parse_set(text)
}

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`mlxconfig::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "mlxconfig";
