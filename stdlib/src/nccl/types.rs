//! The typed result of an nccl-tests run (`all_reduce_perf` and its siblings).

use serde::Serialize;

use crate::grammar::{Message, ToolError};

/// What an nccl-tests binary printed: its settings, its ranks, its size table, its verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcclTests {
    /// `# nccl-tests version 2.17.1 ...`: the nccl-tests version; `null` when not printed (older).
    pub version: Option<String>,
    /// `# Collective test starting: all_reduce_perf`: the test's program.
    pub test: Option<String>,
    /// The `# nThread 1 nGpus 1 minBytes 8 ...` line.
    pub settings: Option<Settings>,
    /// `# Using devices`: one entry per rank line.
    pub devices: Vec<RankDevice>,
    /// The size table's rows, in printed order.
    pub results: Vec<SizeResult>,
    /// `Out of bounds values : N OK|FAILED`: the values that failed the data check.
    pub out_of_bounds_values: Option<u64>,
    /// Whether that line said `OK`.
    pub out_of_bounds_ok: Option<bool>,
    /// `Avg bus bandwidth : X`: the mean bus bandwidth over the sizes, in GB/s.
    pub avg_bus_bandwidth_gbytes_sec: Option<f64>,
    /// The `NCCL WARN` lines NCCL printed (with `NCCL_DEBUG=WARN` or `INFO`), in order.
    pub warnings: Vec<Message>,
    /// The test's own failure (`Test NCCL failure`, `Test CUDA failure`, `Test failure`): the
    /// first one printed.
    pub error: Option<ToolError>,
    /// Every other line (NCCL INFO lines, the launcher's), with its line number.
    pub messages: Vec<Message>,
}

/// The run's settings, as the `# nThread` line prints them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// `nThread`: threads per process (`-t`).
    pub n_thread: u32,
    /// `nGpus`: GPUs per thread (`-g`).
    pub n_gpus: u32,
    /// `minBytes` (`-b`).
    pub min_bytes: u64,
    /// `maxBytes` (`-e`), after any reduction to fit the GPU memory.
    pub max_bytes: u64,
    /// `step:` value: the factor (`-f`) or the increment in bytes (`-i`).
    pub step: u64,
    /// `factor` or `bytes`.
    pub step_kind: String,
    /// `warmup iters:` (`-w`).
    pub warmup_iters: u32,
    /// `iters:` (`-n`).
    pub iters: u32,
    /// `agg iters:` (`-m`); `null` in older versions.
    pub agg_iters: Option<u32>,
    /// `validation:` (`-c`).
    pub validation: u32,
    /// `graph:` (`-G`); `null` in older versions.
    pub graph: Option<u32>,
    /// `unalign:` (`-u`); `null` in older versions.
    pub unalign: Option<u32>,
}

/// One `#  Rank  0 Group  0 Pid   6899 on host device  0 [0000:04:00] NVIDIA H100 80GB HBM3`
/// line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RankDevice {
    /// `Rank`.
    pub rank: u32,
    /// `Group` (`-C`); `null` in older versions.
    pub group: Option<u32>,
    /// `Pid`.
    pub pid: u64,
    /// The host after `on`.
    pub host: String,
    /// `device`: the CUDA device number.
    pub device: u32,
    /// The PCI location in brackets, as printed (`0000:04:00`, older `0x01`).
    pub pci: String,
    /// The GPU's name (`NVIDIA H100 80GB HBM3`).
    pub name: String,
}

/// One row of the size table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeResult {
    /// `size` in bytes.
    pub size_bytes: u64,
    /// `count` in elements.
    pub count: u64,
    /// `type` (`float`).
    pub data_type: String,
    /// `redop` (`sum`, `none`); `null` in older versions.
    pub redop: Option<String>,
    /// `root` (`-1` for none); `null` in older versions.
    pub root: Option<i64>,
    /// The out-of-place measurement.
    pub out_of_place: Measurement,
    /// The in-place measurement; `null` for a test that has none (a trace replay).
    pub in_place: Option<Measurement>,
}

/// One side of a size table row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    /// `time` in microseconds.
    pub time_usec: f64,
    /// `algbw` in GB/s.
    pub algbw_gbytes_sec: f64,
    /// `busbw` in GB/s.
    pub busbw_gbytes_sec: f64,
    /// `#wrong`: the elements that failed the data check; `null` for `N/A` (no check) or in
    /// older versions.
    pub wrong: Option<u64>,
    /// Older versions' `error` column: the largest error found (`1e+00`).
    pub max_error: Option<f64>,
}
