//! `ibqueryerrors`: every port in the fabric whose error counters are over their threshold,
//! with the fabric-wide summary, so a sweep names the bad cables.
//!
//! Reads `ibqueryerrors [-c] [-s ...] [-r] [--data] [--counters] [--details]` text output, whose
//! format is rdma-core's `infiniband-diags/ibqueryerrors.c`; the grammar is `ibqueryerrors.pest`
//! with the shared `../link.pest` (`-r`) and `../diag.pest` (the tool's warnings and errors).
//! See docs/parsers.md.

mod parse;
pub(crate) mod sim;
#[cfg(test)]
mod tests;
mod types;

pub use types::{ErrorNode, ErrorPort, IbQueryErrors, Summary};

/// Parses `ibqueryerrors` output.
///
/// Claims: an output holding an `Errors for ...` or `Data Counters for ...` node line, or the
/// `## Summary: N nodes checked, N bad nodes found` line (a clean fabric prints the summary
/// alone), or `ibqueryerrors: iberror: ...` (the tool's own fatal line). Port lines must follow
/// a node line, a `Link info:` line a port line; warnings (`ibwarn: ...`) may stand anywhere
/// but never make an output ibqueryerrors's alone. Anything else is refused.
pub fn parse(text: &str) -> Result<IbQueryErrors, crate::ParseError> {
    parse::parse(text)
}
