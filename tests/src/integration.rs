//! End-to-end tests: the built `cairn` binary on simulated hosts, one module per feature.

mod cli;
mod crash;
mod cross_host;
mod debugger;
mod docs;
mod esxi;
mod executor;
mod guest;
mod leftovers;
mod readme;
mod recipes;
mod repl;
mod rerun_crash;
mod ssh;
mod ssh_lab;
