//! `vhpc::` builtins: vCenter through `vhpc_toolkit` on a management host, and the simulated
//! vCenter (`sim:vcenter`).

pub mod builtins;
mod command;
mod reads;
mod remote;
pub(crate) mod sim;
mod view;

pub(crate) use sim::VhpcToolkit;

/// The namespace the builtins are registered under; with the name a script calls, it is
/// each builtin's journal name (`vhpc::...`), so no name is typed twice.
pub(crate) const NAMESPACE: &str = "vhpc";
