//! `ofed_info`: the installed MLNX_OFED / DOCA-OFED version, and with the full listing, its
//! components and installed packages.
//!
//! Reads `ofed_info -s` (one line, `MLNX_OFED_LINUX-5.4-3.0.3.0:`) and the full `ofed_info`
//! (first line `OFED-internal-26.01-1.0.0:`, then `name:` / source / `commit` entries, then
//! `Installed Packages:`). The grammar is `ofed.pest`.

mod parse;
mod types;

pub use types::{OfedComponent, OfedInfo};

/// Parses `ofed_info` or `ofed_info -s` output.
pub fn parse_info(text: &str) -> Result<OfedInfo, crate::ParseError> {
    parse::parse_info(text)
}

/// Registers the `ofed::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
