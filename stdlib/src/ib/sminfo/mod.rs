//! `sminfo`: which subnet manager is master, with its LID, GUID, priority and activity count,
//! so a runbook can check that exactly the SM it expects runs the fabric.
//!
//! Reads `sminfo [SM_LID|SM_DR_PATH]` output, whose format is rdma-core's
//! `infiniband-diags/sminfo.c`; the grammar is `sminfo.pest` with the shared `../diag.pest`.
//! See docs/parsers.md.

mod parse;
#[cfg(test)]
mod tests;
mod types;

pub use types::SmInfo;

/// Parses `sminfo` output.
///
/// Claims: the line `sminfo: sm lid N sm guid 0x..., activity count N priority N state N
/// NAME`, or the tool's own fatal line `sminfo: iberror: ...` (no SM answered); warnings may
/// stand around it. One line per capture: a second is an error. Anything else is refused.
pub fn parse(text: &str) -> Result<SmInfo, crate::ParseError> {
    parse::parse(text)
}
