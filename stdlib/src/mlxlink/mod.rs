//! `mlxlink`: a port's link as the adapter (or switch) firmware reports it: state, speed,
//! width, FEC, the speeds enabled and supported, the firmware's troubleshooting advice, and
//! with `-c` the physical error counters and bit error rates.
//!
//! Reads `mlxlink -d DEV [-p PORT] [-c] [-m] [-e] ...` text output (MFT, and mstflint's
//! `mstlink`), whose format is mstflint's `MlxlinkCmdPrint` and `MlxlinkRecord`
//! (mlxlink/modules/printutil): sections of padded `label : value` lines. The grammar is
//! `mlxlink.pest`; see docs/parsers.md. `mlxlink::read` (`builtins.rs`) reads a port with it;
//! `sim.rs` prints it on a simulated Linux host.

pub mod builtins;
pub(crate) mod command;
mod parse;
mod reading;
pub(crate) mod sim;
#[cfg(test)]
mod tests;
mod types;

pub use reading::LinkReading;

/// The namespace the builtins are registered under: `mlxlink::read` is its journal name.
pub(crate) const NAMESPACE: &str = "mlxlink";

pub use types::{
    Counters, Field, Mlxlink, Operational, Section, SpeedMask, Supported, ToolInformation,
    Troubleshooting,
};

/// Parses `mlxlink` text output.
///
/// Claims: an output holding mlxlink's `Operational Info` section (a title over a rule of
/// dashes, then `label : value` lines), which every port query prints first; its other
/// sections, blank lines and `-E-`/`-W-`/`-I-` lines may come before or after. Anything else
/// (another MFT tool's `Device #1:` block, `-E-` lines alone, `hello world`) is refused.
/// One output per capture: a second `Operational Info` section is an error.
pub fn parse(text: &str) -> Result<Mlxlink, crate::ParseError> {
    parse::parse(text)
}
