//! `nccl`: the NCCL performance tests (no builtin of its own: `fabric::nccl_all_reduce` runs
//! them, from `command.rs`'s launch and `verdict.rs`'s judgement): `all_reduce_perf`, `all_gather_perf`,
//! `reduce_scatter_perf`, `alltoall_perf`, `broadcast_perf`, `sendrecv_perf` ... of
//! NVIDIA/nccl-tests, whose bus bandwidth is how a GPU fabric is accepted.
//!
//! Read line by line (`parse.rs`): the lines nccl-tests prints (`src/util.cu`: the settings,
//! the device report, the size table, the footer; `src/common.h`: its failure lines) and NCCL's
//! `NCCL WARN` lines are known; every other line (NCCL INFO, the launcher's) is a message.

pub(crate) mod command;
mod parse;
pub(crate) mod sim;
#[cfg(test)]
mod tests;
mod types;
pub(crate) mod verdict;

pub use types::{Measurement, NcclTests, RankDevice, Settings, SizeResult};

/// Parses an nccl-tests binary's output.
///
/// Claims: output holding a line only nccl-tests prints (its `nThread ... nGpus ...` settings,
/// its size table's titles, its `Out of bounds values` or `Avg bus bandwidth` footer, its
/// version or `Collective test` lines, or its own `Test NCCL failure`/`Test CUDA failure` line);
/// text with none of them is refused. Inside the size table a line that starts like a row but
/// does not read as one (a cell missing, a number that is none) is an error at that line.
pub fn parse(text: &str) -> Result<NcclTests, crate::ParseError> {
    parse::parse(text)
}
