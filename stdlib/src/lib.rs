//! Vendor tool modules for cairn.
//!
//! One module per tool: its pest grammar, the typed result, and (as they arrive) its builtins
//! and simulator model. [`parsers`] lists every output parser by the name `cairn parse` uses.

mod action;
mod column_cursor;
pub mod esxcli;
pub mod fabric;
pub mod flint;
pub mod ib;
pub mod ibdev2netdev;
pub mod ibnetdiscover;
pub mod ibstat;
pub mod ibstatus;
pub mod ibv_devinfo;
pub mod ip;
mod library;
pub mod lspci;
pub mod mlxconfig;
pub mod mlxfwmanager;
pub mod mst;
pub mod net;
pub mod ofed;
pub mod openibd;
mod parse_error;
pub mod parsers;
mod peer_lock;
pub mod perftest;
pub(crate) mod sim_esxi;
mod sim_guest;
mod sim_linux_commands;
mod sim_passthrough;
pub mod sockperf;
#[cfg(test)]
mod test_support;
pub mod vhpc;

pub use library::{libraries, sim_models};
pub use parse_error::ParseError;
