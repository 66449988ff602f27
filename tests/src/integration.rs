//! End-to-end tests: the built `cairn` binary on simulated hosts, one module per feature.

mod cli;
mod crash;
mod executor;
