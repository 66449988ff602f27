//! The simulated host: state in a directory, generic commands, and the table that tool models fill.
//!
//! A simulated host keeps everything in its state directory (by convention `.cairn/sim/<host>/`),
//! so it outlives the interpreter as a real host does, and a separate process (the
//! `cairn-simhost` binary behind sshd) can serve the same host. See `docs/simulator.md`.
//!
//! ```
//! use std::collections::BTreeMap;
//! use cairn_runtime::sim::{SimRegistry, SimTransport};
//! use cairn_runtime::{ExecRequest, Transport};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let model = SimRegistry::with_builtin_models().model("linux")?;
//! let options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
//! let mut host = SimTransport::new("node01", dir.path(), model, options)?;
//! let output = host.exec(&ExecRequest::new(["hostname"]))?;
//! assert_eq!(output.stdout, "node01\n");
//! # Ok(())
//! # }
//! ```
//!
//! The command log and its mark: `json_log.rs`, and `log_mark.rs`, the log cut back to what the
//! saved state saw.

mod boot_marker;
mod exchange;
mod generic_commands;
mod json_log;
mod log_mark;
mod sim_address_check;
mod sim_boot;
mod sim_context;
mod sim_dir;
mod sim_error;
mod sim_fence;
mod sim_host;
mod sim_model;
mod sim_options;
mod sim_registry;
mod sim_state;
mod sim_time;
mod sim_tool;
mod sim_transport;
#[cfg(test)]
mod tests;

pub use boot_marker::BootMarker;
pub use json_log::COMMAND_LOG;
pub use sim_address_check::check_address;
pub use sim_boot::SimBoot;
pub use sim_context::SimContext;
pub use sim_dir::SIM_DIR_VAR;
pub use sim_error::SimError;
pub use sim_fence::{FENCED_LOG, FencedLine, read_fenced_log};
pub use sim_host::{LOCK_FILE, STATE_FILE, SimHost};
pub use sim_model::SimModel;
pub use sim_registry::SimRegistry;
pub use sim_state::read_whole as read_state;
pub use sim_tool::SimTool;
pub use sim_transport::SimTransport;
