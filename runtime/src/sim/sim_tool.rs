//! The extension point: a simulated tool answers some commands and keeps its own state.

use super::SimContext;
use crate::ExecOutput;

/// A simulated command-line tool (`mlxconfig`, `esxcli`, ...), added to a [`SimModel`](super::SimModel).
///
/// A tool prints what the real tool prints. It keeps what it must remember in its JSON state slot
/// ([`SimContext::state_mut`]), under [`SimTool::name`], and sees the host's files, options, clock
/// and boots through the [`SimContext`]. A tool may answer a command that the simulator's
/// generic commands also answer (`cat`, `reboot`): the tool wins.
///
/// ```
/// use cairn_runtime::ExecOutput;
/// use cairn_runtime::sim::{SimContext, SimTool};
///
/// /// `counter`: prints how many times it ran on this host.
/// struct Counter;
///
/// impl SimTool for Counter {
///     fn commands(&self) -> &[&'static str] {
///         &["counter"]
///     }
///
///     fn run(&self, host: &mut SimContext<'_>, _argv: &[String]) -> ExecOutput {
///         let runs = host.state().as_u64().unwrap_or(0) + 1;
///         *host.state_mut() = runs.into();
///         ExecOutput { code: 0, stdout: format!("{runs}\n"), stderr: String::new() }
///     }
/// }
/// ```
pub trait SimTool: Send + Sync {
    /// The programs this tool answers, by name (`mlxconfig`) or full path
    /// (`/opt/mellanox/bin/mlxconfig`). A command matches on its exact program first, then on the
    /// program's base name.
    fn commands(&self) -> &[&'static str];

    /// Runs one command; `argv[0]` is the program as the caller wrote it.
    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput;

    /// The key of this tool's state slot; by default its first command.
    fn name(&self) -> &'static str {
        self.commands().first().copied().unwrap_or("tool")
    }

    /// The `sim:` address options this tool reads (for example `fw_version`), so that the
    /// simulator accepts them; any other unknown option is an error.
    fn options(&self) -> &[&'static str] {
        &[]
    }

    /// Checks the value of one of [`SimTool::options`] when a host is opened: `Err` says what the
    /// option takes (`` `passthrough` ``), and opening the host fails with `sim_bad_option`.
    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        let _ = (key, value);
        Ok(())
    }

    /// Called at every boot, after the boot marker is written: staged changes become current.
    fn on_boot(&self, host: &mut SimContext<'_>) {
        let _ = host;
    }

    /// Why the host does not answer now, if it does not: checked before every command, after
    /// a pending boot (a guest whose VM is powered off in its vCenter is as unreachable as a
    /// host that is down). `Some(reason)` refuses the command with `TransportError::Unreachable`.
    fn unreachable(&self, host: &SimContext<'_>) -> Option<String> {
        let _ = host;
        None
    }

    /// Whether the host boots now, before this command: a guest whose VM was powered on again
    /// since its last boot (its OS starts from cold, so it is down for its reboot time, then
    /// comes back with a new boot id, as after `reboot`). Checked after
    /// [`SimTool::unreachable`]; the tool records what it saw in its state, so it answers
    /// `true` once per power-on.
    fn boots_now(&self, host: &mut SimContext<'_>) -> bool {
        let _ = host;
        false
    }

    /// Called once, when the host is created (before its first boot) or when a model gains this
    /// tool after the host was created.
    fn init(&self, host: &mut SimContext<'_>) {
        let _ = host;
    }
}
