//! End-to-end tests: the built `cairn` binary on simulated hosts, one module per feature.

mod budget;
mod cli;
mod crash;
mod cross_host;
mod debugger;
mod disk_full;
mod docs;
mod esxi;
mod executor;
mod guest;
mod hangs;
mod leftovers;
mod parse;
mod readme;
mod recipes;
mod repl;
mod rerun_crash;
mod rolling;
mod signals;
mod ssh;
mod ssh_lab;
mod store;
mod typos;
