//! The typed result of `ibv_rc_pingpong` output.

use serde::Serialize;

use crate::grammar::{Message, ToolError};

/// One side's `ibv_rc_pingpong [-d DEV] [-g GIDX] [-s SIZE] [-n ITERS] [HOST]` transcript:
/// the server's or the client's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RcPingpong {
    /// This side's queue pair (`local address:`).
    pub local: Option<QpAddress>,
    /// The peer's (`remote address:`): printed once the two sides exchanged addresses.
    pub remote: Option<QpAddress>,
    /// Bytes exchanged (`N bytes in ...`); null when the run did not complete.
    pub bytes: Option<u64>,
    /// The run's elapsed time in seconds, as printed (two decimals).
    pub elapsed_sec: Option<f64>,
    /// `= N Mbit/sec`.
    pub bandwidth_mbit_per_sec: Option<f64>,
    /// Exchanges done (`N iters in ...`).
    pub iters: Option<u64>,
    /// `= N usec/iter`: the time of one exchange.
    pub usec_per_iter: Option<f64>,
    /// `-t`: the receive completion clock cycles, `max`, `min`, `average`.
    pub completion_cycles: Option<CompletionCycles>,
    /// `-c`: each page whose received data did not check.
    pub invalid_pages: Vec<u64>,
    /// True when the run printed its results (`N iters in ...`).
    pub completed: bool,
    /// The tool's own error: its first error line (`Failed to modify QP to RTR`, `Couldn't
    /// connect to HOST:PORT`, `Failed status ... for wr_id N`).
    pub error: Option<ToolError>,
    /// Every line the parser does not know (and error lines after the first), with its number.
    pub messages: Vec<Message>,
}

/// A queue pair's address as the two sides exchange it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QpAddress {
    /// The port's LID (0 on RoCE).
    pub lid: u32,
    /// The queue pair number, as printed (`0x000011`).
    pub qpn: String,
    /// The packet sequence number, as printed.
    pub psn: String,
    /// The GID as printed (`fe80::...`, `::ffff:10.0.0.1` on RoCE v2); null for releases that
    /// print none.
    pub gid: Option<String>,
}

/// `-t`'s receive completion clock cycles.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompletionCycles {
    /// `Max receive completion clock cycles`.
    pub max: Option<f64>,
    /// `Min receive completion clock cycles`.
    pub min: Option<f64>,
    /// `Average receive completion clock cycles`.
    pub average: Option<f64>,
}
