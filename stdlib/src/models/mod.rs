//! Layer 3: the simulated host models, each a set of tool simulators over one machine.

pub(crate) mod esxi7;
mod linux_commands;
mod lspci;
pub(crate) mod metal;
pub(crate) mod rhel8;
