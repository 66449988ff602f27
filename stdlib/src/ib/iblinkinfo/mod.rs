//! `iblinkinfo`: every port of the fabric with its link (width, speed, state) and the port at
//! its other end, so a runbook sees a down or narrowed link and where it goes.
//!
//! Reads `iblinkinfo [-l] [--switches-only|--cas-only] [-d] [-a]` text output, whose format is
//! rdma-core's `infiniband-diags/iblinkinfo.c`; the grammar is `iblinkinfo.pest` with the
//! shared `../link.pest` and `../diag.pest`. See docs/parsers.md.

mod parse;
pub(crate) mod sim;
#[cfg(test)]
mod tests;
mod types;

pub use types::{IbLinkInfo, LinkNode, LinkPort};

/// Parses `iblinkinfo` output.
///
/// Claims: an output holding a node header (`Switch: 0x... NAME:`, `CA: NAME:`, `Router:
/// NAME:`) or a port line (`LID PORT[EXT] ==(...)==>  PEER`, after a CA's port GUID, or `-l`'s
/// `GUID "NAME" ...`), or the tool's own fatal line `iblinkinfo: iberror: ...`. Warnings alone,
/// and `ibqueryerrors -r`'s `Link info:` lines, are refused.
pub fn parse(text: &str) -> Result<IbLinkInfo, crate::ParseError> {
    parse::parse(text)
}
