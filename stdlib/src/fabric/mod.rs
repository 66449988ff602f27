//! `fabric::`: acceptance tests of a whole InfiniBand fabric from a controller — every pair's
//! bandwidth and latency (`all_pairs`), scheduled, judged and retested as NVIDIA ClusterKit
//! does, in the run's journal so a resume continues where it stopped; every link of the fabric
//! against the manifest's `[links]` thresholds (`link_sweep`); and a GPU cluster's NCCL bus
//! bandwidth across its nodes (`nccl_all_reduce`, `nccl.rs`) and pair by pair (`nccl_pairs`,
//! `nccl_pairs.rs`).

pub(crate) mod all_pairs;
pub mod builtins;
mod leaves;
mod link_sweep;
mod link_thresholds;
mod manifest;
mod manifest_check;
mod matrix_verdict;
pub(crate) mod nccl;
pub(crate) mod nccl_pairs;
mod pairing;
mod reads;
pub use link_sweep::{BadLink, LinkSweep, Unjudged};
pub use manifest::Difference;
pub use manifest_check::ManifestCheck;
pub use matrix_verdict::{Excluded, MatrixVerdict};
pub use pairing::Pairing;
pub use reads::{Leaves, LineRate};
pub use verdict::{PairResult, Suspects};
pub(crate) mod options;
mod schedule;
mod verdict;

#[cfg(test)]
mod tests;
