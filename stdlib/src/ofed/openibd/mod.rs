//! `/etc/init.d/openibd restart|start|stop` (MLNX_OFED's driver service): each step's outcome,
//! and every failure path the script prints (read from MLNX_OFED's `ofed_scripts/openibd`):
//! applications still using the InfiniBand devices, modules that block the unload, a module
//! `rmmod` cannot remove, active virtual functions, `stop` disabled, the usage line. A transcript
//! (docs/parsers.md): read line by line in `parse.rs`, unknown lines kept as messages.

mod parse;
pub(crate) mod sim;
mod types;

pub use types::{DeviceHolder, ModuleInUse, Openibd, OpenibdStep};

/// Parses `openibd restart|start|stop` output.
///
/// Claims: at least one line of the script's own (a step with its `[  OK  ]`/`[FAILED]`
/// status, a refusal, an `rmmod` error); only then are other lines messages. Text with none is
/// refused.
pub fn parse(text: &str) -> Result<Openibd, crate::ParseError> {
    parse::parse(text)
}

#[cfg(test)]
mod tests;
