//! The typed result of `/etc/init.d/openibd`.

use serde::Serialize;

use crate::grammar::{Message, ToolError};

/// What `openibd restart|start|stop` printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Openibd {
    /// The steps, in order.
    pub steps: Vec<OpenibdStep>,
    /// True when every step printed `OK` (or `done`) and the script printed no error.
    pub ok: bool,
    /// What the script said stops it: `Please stop "opensm" and all applications running over
    /// InfiniBand.`, `Please make sure module 'rpcrdma' is not in use and unload it.`, ...
    pub issues: Vec<Message>,
    /// The applications it listed under `Please stop the following applications still using
    /// Infiniband devices:`.
    pub applications: Vec<DeviceHolder>,
    /// `rmmod: ERROR: Module X is in use by: A B` after an `Unloading X [FAILED]` step.
    pub modules_in_use: Vec<ModuleInUse>,
    /// The modules of `# modprobe -rv ...` under `To unload the blocking modules, you can run:`.
    pub blocking_modules: Vec<String>,
    /// The commands the script says to run (the line after one ending in `run:`), without the
    /// `# ` prompt it prints before them.
    pub next_steps: Vec<String>,
    /// The script's own error, when it printed one; the first failed step otherwise.
    pub error: Option<ToolError>,
    /// Lines the parser does not know (`Please run /usr/sbin/sysinfo-snapshot.py ...`).
    pub messages: Vec<Message>,
}

/// One `Label: [ STATUS ]` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenibdStep {
    /// `Loading HCA driver and Access Layer`, `Unloading mlx_compat`.
    pub name: String,
    /// `OK`, `FAILED`, `WARNING` or `done`, as printed.
    pub status: String,
    /// The line number, from 1.
    pub line: usize,
}

/// `opensm(1632) user root is using device umad0`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceHolder {
    /// `opensm`.
    pub program: String,
    /// `1632`.
    pub pid: u32,
    /// `root`.
    pub user: String,
    /// `umad0` (under `/dev/infiniband`).
    pub device: String,
}

/// A module `rmmod` could not unload, and the modules that use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleInUse {
    /// `mlx_compat`.
    pub module: String,
    /// `nvme_core`, `nvme_fabrics`.
    pub used_by: Vec<String>,
}
