//! ibdiagnet's console output: the stage table that ends every run (each stage's errors and
//! warnings), ibdiagnet2's fabric summary (nodes, switches, adapters), and where the full log
//! is, so a runbook sees at once whether a fabric check found anything. (The database file
//! ibdiagnet writes is `ibdiagnet-db-csv`, `../ibdiagnet`.)
//!
//! Read line by line (a transcript, docs/parsers.md): ibdiagnet2's `Summary` table (NVIDIA's
//! ibdiagnet, MFT/ibutils2) and ibutils 1.x's `Stages Status Report` (its `SummaryMessage`,
//! `ibdiag/src/ibdebug.tcl`: `format "    %-40s %-6d %-6d"`), each row read at the columns
//! of its table's header. See docs/parsers.md.

mod parse;
#[cfg(test)]
mod tests;
mod types;

pub use types::{FabricSummary, IbdiagnetSummary, Stage};

/// Parses ibdiagnet's console output.
///
/// Claims: an output holding a stage table's header (`-I- Stage  Warnings  Errors  Comment`
/// after `Summary`, or `STAGE  Errors Warnings` after `-I- Stages Status Report:`), or
/// ibdiagnet2's `Fabric Summary` block (its title, then `Total Nodes : N`). Every other line is
/// a message; text with neither is refused.
pub fn parse(text: &str) -> Result<IbdiagnetSummary, crate::ParseError> {
    parse::parse(text)
}
