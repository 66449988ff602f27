//! The typed result of a perftest run (`ib_*_bw`, `ib_*_lat`, `raw_ethernet_*`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A `perftest::*` builtin's result as journaled: the client's run, with the pair of hosts
/// it ran between, the program and its command line (the report reads it as this type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedRun {
    /// What the client printed.
    #[serde(flatten)]
    pub run: PerftestRun,
    /// The host the server ran on.
    pub server: String,
    /// The host the client ran on.
    pub client: String,
    /// The program (`ib_send_bw`).
    pub program: String,
    /// The client's command line.
    pub command: String,
}

/// What one perftest invocation printed: its settings, the queue pair addresses, the results
/// table, and the warnings or error it printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerftestRun {
    /// The banner title (`Send BW Test`, `RDMA_Read Latency Test`); `null` for error-only output.
    pub test: Option<String>,
    /// `bw` or `lat`, from the title.
    pub kind: Option<String>,
    /// `server` (it printed `Waiting for client ...`) or `client` (it printed `TX depth`
    /// without waiting); `null` when the output does not tell.
    pub side: Option<String>,
    /// Every `key : value` setting of the banner.
    pub header: PerftestHeader,
    /// The local queue pair addresses, one per QP.
    pub local: Vec<QpAddress>,
    /// The remote queue pair addresses, one per QP.
    pub remote: Vec<QpAddress>,
    /// The field names of the table columns, in order (`bytes`, `iterations`, `bw_peak_gbps`).
    pub columns: Vec<String>,
    /// One row per message size.
    pub rows: Vec<PerftestRow>,
    /// Warnings printed anywhere (`WARNING: ...`, CPU-frequency lines inside the table).
    pub warnings: Vec<String>,
    /// Other informational lines (CUDA set-up, `Waiting for client rdma_cm QP to connect`,
    /// legacy `Inline data is used up to ...`).
    pub messages: Vec<String>,
    /// The failure perftest reported, if any.
    pub error: Option<PerftestError>,
}

/// The banner settings. Fields are absent when the banner does not print them (they depend on
/// the test, the side and the perftest version).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerftestHeader {
    /// `Dual-port`: `ON` or `OFF`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dual_port: Option<String>,
    /// `Device`: the RDMA device (`mlx5_0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// `Number of qps`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number_of_qps: Option<u32>,
    /// `Transport type` (`IB`, also for RoCE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport_type: Option<String>,
    /// `Connection type` (`RC`, `UC`, `UD`, `DC`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_type: Option<String>,
    /// `Using SRQ`: `ON` or `OFF`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub using_srq: Option<String>,
    /// `PCIe relax order`: `ON`, `OFF` or `Unsupported`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pcie_relax_order: Option<String>,
    /// `ibv_wr* API`: `ON` or `OFF`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ibv_wr_api: Option<String>,
    /// `TX depth`, in work requests (client side).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tx_depth: Option<u32>,
    /// `RX depth`, in work requests (server side of send tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rx_depth: Option<u32>,
    /// `CQ Moderation`: completions per signalled work request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cq_moderation: Option<u32>,
    /// `Mtu`, in bytes (`4096[B]`; legacy `2048`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mtu_bytes: Option<u32>,
    /// `Link type`: `IB` or `Ethernet` (RoCE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_type: Option<String>,
    /// `GID index` (RoCE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gid_index: Option<u32>,
    /// `Max inline data`, in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_inline_data_bytes: Option<u32>,
    /// `Outstand reads` (read and atomic tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outstand_reads: Option<u32>,
    /// `rdma_cm QPs`: `ON` or `OFF`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rdma_cm_qps: Option<String>,
    /// `Data ex. method`: `Ethernet` (TCP socket) or `rdma_cm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_ex_method: Option<String>,
    /// `TOS` (with rdma_cm).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tos: Option<u32>,
    /// Every other setting, by its name in snake case (`lock_free`, `using_ddp`, `post_list`),
    /// with its value as printed.
    pub other: BTreeMap<String, String>,
}

/// One `local address:` or `remote address:` line and the `GID:` line under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QpAddress {
    /// The LID (printed in hex: `0x14` is 20; `0000` on RoCE).
    pub lid: Option<u32>,
    /// The queue pair number as printed (`0x004b`).
    pub qpn: Option<String>,
    /// The initial packet sequence number as printed (`0x971bc7`).
    pub psn: Option<String>,
    /// The outstanding reads (`OUT 0x10`) as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_reads: Option<String>,
    /// The memory region key as printed (write, read and atomic tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rkey: Option<String>,
    /// The remote buffer address as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vaddr: Option<String>,
    /// The GID as printed (RoCE; `00:...:255:255:192:168:05:02`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gid: Option<String>,
}

/// One row of the results table. Only the columns the table has are present; names carry
/// the unit (`_gbps` Gb/s, `_mbps` MB/s, `_mibps` MiB/s, `_mpps` million messages/s, `_usec`
/// microseconds, `_percent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerftestRow {
    /// `#bytes`: the message size, in bytes.
    pub bytes: u64,
    /// `#sl`: the service level (QoS runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sl: Option<u32>,
    /// `#iterations`: messages exchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// `BW peak[Gb/sec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_peak_gbps: Option<f64>,
    /// `BW average[Gb/sec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_average_gbps: Option<f64>,
    /// `BW peak[MB/sec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_peak_mbps: Option<f64>,
    /// `BW average[MB/sec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_average_mbps: Option<f64>,
    /// `BW peak[MiB/sec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_peak_mibps: Option<f64>,
    /// `BW average[MiB/sec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bw_average_mibps: Option<f64>,
    /// `MsgRate[Mpps]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub msg_rate_mpps: Option<f64>,
    /// Per-port columns of dual-port runs (`bw_port1_gbps`, `msg_rate_port1_mpps`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_port: BTreeMap<String, f64>,
    /// `t_min[usec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_min_usec: Option<f64>,
    /// `t_max[usec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_max_usec: Option<f64>,
    /// `t_typical[usec]`: the median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_typical_usec: Option<f64>,
    /// `t_avg[usec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_avg_usec: Option<f64>,
    /// `t_stdev[usec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_stdev_usec: Option<f64>,
    /// `99%[usec]` / `99% percentile[usec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_usec: Option<f64>,
    /// `99.9%[usec]` / `99.9% percentile[usec]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_9_usec: Option<f64>,
    /// `tps average`: transactions per second (latency runs with `-D`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tps_average: Option<f64>,
    /// `CPU_Util[%]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_util_percent: Option<f64>,
}

/// A failure perftest reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerftestError {
    /// What failed: `connection` (TCP connect to the server), `socket` (socket set-up, listen,
    /// accept), `qp_state` (modify QP to INIT/RTR/RTS), `data_exchange` (exchanging keys or
    /// results), `rdma_cm` (address/route resolution, CM events), `accelerator` (GPU memory
    /// set-up: CUDA, ROCm, Neuron), `memory` (allocating or registering the memory region),
    /// `device` (device not found or not usable), `completion` (a work completion with error),
    /// or `other`.
    pub kind: String,
    /// The first error line.
    pub message: String,
    /// Its line number in the output, from 1.
    pub line: Option<usize>,
    /// Every error line, in order.
    pub lines: Vec<String>,
    /// The server host of `Couldn't connect to host:port`.
    pub host: Option<String>,
    /// The TCP port of `Couldn't connect to host:port`.
    pub port: Option<u16>,
    /// The rdma_cm event of `Event: RDMA_CM_EVENT_ADDR_ERROR; error: -19.`.
    pub event: Option<String>,
    /// Its error code (`-19`), or the event number of `unexpected CM event 8`.
    pub code: Option<i64>,
}
