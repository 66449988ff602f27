//! The typed result of sockperf output.

use serde::{Deserialize, Serialize};

/// `sockperf::ping_pong`'s result as journaled: what the client printed, with the pair of
/// hosts it ran between, its command line and its average latency (the report reads it as
/// this type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PingPongRun {
    /// What the client printed.
    #[serde(flatten)]
    pub output: SockperfOutput,
    /// The host the server ran on.
    pub server: String,
    /// The host the client ran on.
    pub client: String,
    /// The client's command line.
    pub command: String,
    /// The average one-way latency, in microseconds.
    pub avg_us: f64,
}

/// What a sockperf server or client printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SockperfOutput {
    /// The sockperf version (`3.5-no.git`).
    pub version: Option<String>,
    /// `server` (`[SERVER] listen on:`) or `client` (`sockperf[CLIENT] send on:`).
    pub role: Option<String>,
    /// The libvma banner, when sockperf ran with `LD_PRELOAD=libvma.so`.
    pub vma: Option<VmaBanner>,
    /// The addresses listened on or sent to (`[ 0] IP = 11.4.3.3 PORT = 11111 # UDP`).
    pub addresses: Vec<SockperfAddress>,
    /// The server thread id of `[tid N] using recvfrom() ...`.
    pub thread_id: Option<u64>,
    /// The call used to wait for messages (`recvfrom`, `select`, `epoll`).
    pub io_mode: Option<String>,
    /// `[Total Run]` counters, warm-up included.
    pub total_run: Option<RunCounters>,
    /// `[Valid Duration]` counters, the part the statistics cover.
    pub valid_duration: Option<RunCounters>,
    /// The server the statistics are for (`Printing statistics for Server No: 0`).
    pub server_no: Option<u32>,
    /// What the client measured: `ping-pong` (every message answered), `under-load` (one
    /// message in `--reply-every` answered, 100 by default, so the valid duration received
    /// fewer than half the messages it sent), `throughput` (`Summary: Message Rate is ...`), or
    /// `server`; sockperf prints no line naming it.
    pub mode: Option<String>,
    /// `Summary: Message Rate is N [msg/sec]` (throughput mode).
    pub message_rate_per_sec: Option<u64>,
    /// `avg-lat=` / `avg-latency=`: the average one-way latency (half the round trip), in microseconds.
    pub avg_lat_usec: Option<f64>,
    /// `std-dev=`: its standard deviation, in microseconds.
    pub std_dev_usec: Option<f64>,
    /// `# dropped messages`
    pub dropped_messages: Option<u64>,
    /// `# duplicated messages`
    pub duplicated_messages: Option<u64>,
    /// `# out-of-order messages`
    pub out_of_order_messages: Option<u64>,
    /// `Summary: Latency is N usec`, in microseconds.
    pub summary_latency_usec: Option<f64>,
    /// `Total N observations`
    pub observations: Option<u64>,
    /// `each percentile contains N observations`
    pub observations_per_percentile: Option<f64>,
    /// `<MAX> observation`, in microseconds.
    pub max_usec: Option<f64>,
    /// The percentile lines, in output order (highest first).
    pub percentiles: Vec<Percentile>,
    /// `<MIN> observation`, in microseconds.
    pub min_usec: Option<f64>,
    /// Other `sockperf:` messages (`Warmup stage ...`, `Starting test...`, `Test ended`).
    pub messages: Vec<String>,
}

/// `RunTime=...; Warm up time=...; SentMessages=...; ReceivedMessages=...`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCounters {
    /// `RunTime`, in seconds.
    pub run_time_sec: f64,
    /// `Warm up time`, in milliseconds (only on `[Total Run]`).
    pub warm_up_time_msec: Option<f64>,
    /// `SentMessages`
    pub sent_messages: u64,
    /// `ReceivedMessages`
    pub received_messages: u64,
}

/// One latency percentile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    /// The percentile (`99.999`).
    pub percentile: f64,
    /// The latency at that percentile, in microseconds.
    pub usec: f64,
}

/// `[ 0] IP = 22.0.0.3 PORT = 5001 # TCP`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SockperfAddress {
    /// The index in brackets.
    pub index: u32,
    /// The IP address.
    pub ip: String,
    /// The port.
    pub port: u16,
    /// `TCP` or `UDP`.
    pub protocol: Option<String>,
}

/// The `VMA INFO:` banner libvma prints at start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VmaBanner {
    /// The libvma version (`9.5.2-1`).
    pub version: Option<String>,
    /// The rest of the `VMA_VERSION:` line (`Release built on Apr 11 2022 18:07:16`).
    pub build: Option<String>,
    /// `Cmd Line:` the command libvma was loaded into.
    pub cmd_line: Option<String>,
    /// `OFED Version:` as printed.
    pub ofed_version: Option<String>,
    /// `Current Time:` as printed.
    pub current_time: Option<String>,
    /// `Pid:`
    pub pid: Option<u64>,
    /// `Architecture:`
    pub architecture: Option<String>,
    /// `Node:` the host name.
    pub node: Option<String>,
    /// The parameter lines (`Tx QP WRE  256  [VMA_TX_WRE]`), in order.
    pub parameters: Vec<VmaParameter>,
    /// Other VMA lines (warnings, errors), with their level (`WARNING: ...`).
    pub messages: Vec<String>,
}

/// One VMA parameter line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VmaParameter {
    /// The environment variable that sets it (`VMA_TX_WRE`).
    pub env: String,
    /// The parameter name (`Tx QP WRE`), when the columns are still apart (two or more blanks).
    pub name: Option<String>,
    /// The value (`256`, `2 (Huge Pages)`), when the columns are still apart.
    pub value: Option<String>,
    /// The name and value as printed, blank runs collapsed.
    pub text: String,
}
