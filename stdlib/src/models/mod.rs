//! Layer 3: the simulated host models, each a set of tool simulators over one machine.
//!
//! The models: `esxi7`, `rhel8`, `rhel8-metal` (`metal.rs`) and `gpu-metal` (`gpu_metal.rs`), each its machine's own tools and
//! then its host's rows of the table, in order; `lspci.rs` is the `lspci` printer the Linux
//! models use, `gpu_lspci.rs` the GPU server's (its PCIe tree, with the bridges' ACS).

pub(crate) mod esxi7;
mod gpu_lspci;
pub(crate) mod gpu_metal;
mod linux_commands;
mod lspci;
pub(crate) mod metal;
pub(crate) mod rhel8;
