//! `ibv_rc_pingpong`: the simplest RC connection test between two hosts (libibverbs'
//! example), so a runbook can tell that two ports reach each other over RDMA, with the
//! addresses each side used, the bandwidth and the time per exchange.
//!
//! Reads `ibv_rc_pingpong` server or client output, whose format is rdma-core's
//! `libibverbs/examples/rc_pingpong.c`; the grammar is `rc_pingpong.pest`. A transcript
//! (docs/parsers.md, "Transcripts"): lines it does not know are messages, its errors are data.

mod parse;
#[cfg(test)]
mod tests;
mod types;

pub use types::{CompletionCycles, QpAddress, RcPingpong};

/// Parses `ibv_rc_pingpong` output.
///
/// Claims: an output holding an address line (`  local address:  LID 0x%04x, QPN 0x..., PSN
/// 0x...`: the LID in four digits, where perftest's legacy lines of the same shape print two,
/// and its current ones have no commas) or a result line (`N bytes in
/// S seconds = R Mbit/sec`, `N iters in S seconds = U usec/iter`); or one made only of the
/// tool's error lines (its words in rc_pingpong.c). Other lines are then messages; text with
/// none of these (`hello world`) is refused.
pub fn parse(text: &str) -> Result<RcPingpong, crate::ParseError> {
    parse::parse(text)
}
