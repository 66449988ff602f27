//! `ibnodes` (with `ibhosts` and `ibswitches`, whose outputs it joins): every node of the
//! fabric, its GUID, port count and description, and a switch's LID, so a runbook can count
//! the hosts and switches it expects.
//!
//! Reads the scripts' output, whose format is rdma-core's `infiniband-diags/scripts/ibnodes.in`,
//! `ibhosts.in` and `ibswitches.in`; the grammar is `ibnodes.pest` with the shared
//! `../diag.pest`. See docs/parsers.md.

mod parse;
#[cfg(test)]
mod tests;
mod types;

pub use types::{IbNode, IbNodes};

/// Parses `ibnodes`, `ibhosts` or `ibswitches` output.
///
/// Claims: node lines, `Ca|Switch|Router : 0xGUID ports N "NAME"` (a switch's with `base port 0
/// lid N lmc N` after it), or discovery's own fatal line (`ibnetdiscover: iberror: ...`, which
/// the scripts pass through); warnings may stand among them but not alone. An empty output
/// (a fabric without hosts, `ibswitches` on two directly cabled hosts) is refused too: it
/// cannot be told from a tool that printed nothing.
pub fn parse(text: &str) -> Result<IbNodes, crate::ParseError> {
    parse::parse(text)
}
