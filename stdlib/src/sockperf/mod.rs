//! sockperf: the server's start-up lines and the ping-pong client's latency summary
//! (average, standard deviation, message counters, percentiles), with the libvma banner when
//! sockperf runs under `LD_PRELOAD=libvma.so`.
//!
//! The grammar (`sockperf.pest`) reads a stream of prefixed items rather than lines, because
//! sockperf's stdout and stderr interleave within lines and published copies run whole
//! outputs together on one line.

pub mod builtins;
pub(crate) mod command;
mod parse;
pub(crate) mod sim;
mod types;

pub use types::{
    Percentile, PingPongRun, RunCounters, SockperfAddress, SockperfOutput, VmaBanner, VmaParameter,
};

/// Parses sockperf output.
///
/// Claims: at least one sockperf item (`sockperf:`, `sockperf[CLIENT]`, `[ 0] IP = ...`),
/// with libvma's banner before it; a banner alone or anything else is refused.
pub fn parse(text: &str) -> Result<SockperfOutput, crate::ParseError> {
    parse::parse(text)
}

/// The namespace the builtins are registered under, and so the first half of the name each
/// journals its actions under (`sockperf::name`).
pub(crate) const NAMESPACE: &str = "sockperf";
