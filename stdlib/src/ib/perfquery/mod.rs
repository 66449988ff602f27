//! `perfquery`: a port's performance and error counters from its performance management agent
//! (symbol errors, link downs, discards, data and packets, `-x`'s 64-bit counters).
//!
//! Reads `perfquery [-x] [-E|-D|...] [-a] [-l] [LID|GUID] [PORT]` text output, whose format is
//! rdma-core's `infiniband-diags/perfquery.c` and libibmad's `mad_dump_fields`; the grammar is
//! `perfquery.pest` with the shared `../diag.pest`. See docs/parsers.md.

mod parse;
pub(crate) mod sim;
#[cfg(test)]
mod tests;
mod types;

pub use types::{PerfBlock, PerfQuery};

/// Parses `perfquery` output.
///
/// Claims: an output holding a block header, `# TITLE: PORTID port N` (optionally with its
/// `(CapMask: ...)`), with its `Name:....value` fields; or the tool's own fatal line
/// `perfquery: iberror: ...`. Field lines before any header, and warnings alone, are refused.
pub fn parse(text: &str) -> Result<PerfQuery, crate::ParseError> {
    parse::parse(text)
}
