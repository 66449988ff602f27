//! `ofed_info`: the installed MLNX_OFED / DOCA-OFED version, and with the full listing, its
//! components and installed packages.
//!
//! Reads `ofed_info -s` (one line, `MLNX_OFED_LINUX-5.4-3.0.3.0:`) and the full `ofed_info`
//! (first line `OFED-internal-26.01-1.0.0:`, then `name:` / source / `commit` entries, then
//! `Installed Packages:`). The grammar is `ofed.pest`.

pub mod builtins;
pub(crate) mod command;
pub mod openibd;
mod parse;
pub(crate) mod sim;
mod types;

pub use types::{OfedComponent, OfedInfo};

/// Parses `ofed_info` or `ofed_info -s` output.
pub fn parse_info(text: &str) -> Result<OfedInfo, crate::ParseError> {
    parse::parse_info(text)
}

/// Registers the `ofed::` builtins: `ofed::info()`, `ofed::install(tarball[, #{...}])`,
/// `ofed::restart()`.
pub fn install(engine: &mut rhai::Engine) {
    static MODULE: std::sync::OnceLock<rhai::Shared<rhai::Module>> = std::sync::OnceLock::new();
    let module = MODULE
        .get_or_init(|| rhai::Shared::new(rhai::exported_module!(builtins::ofed_builtins)))
        .clone();
    cairn_runtime::declare_options(&builtins::INSTALL_OPTIONS);
    engine.register_static_module("ofed", module);
}
