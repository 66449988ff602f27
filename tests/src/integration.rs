//! End-to-end tests: the built `cairn` binary on simulated hosts, one module per feature.

mod cli;
mod crash;
mod debugger;
mod docs;
mod esxi;
mod executor;
mod guest;
mod parse;
mod readme;
mod recipes;
mod repl;
mod ssh;
mod ssh_lab;
