//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// cairn: runbooks for InfiniBand and RoCE fabric on ESXi hosts and Linux guests.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about)]
pub(crate) struct Cli {
    /// Where runs and simulated hosts keep their state.
    #[arg(long, global = true, default_value = ".cairn", env = "CAIRN_STATE_DIR")]
    pub(crate) state_dir: PathBuf,
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check a runbook without running anything: syntax, unknown functions and modules, argument
    /// counts and literal types, option keys, params and stages declared once, stages not
    /// nested, actions inside stages, imports; with an inventory, the stages' groups too.
    Check {
        /// The runbook.
        runbook: PathBuf,
        /// The inventory (TOML) whose groups the stages must name.
        #[arg(short, long)]
        inventory: Option<PathBuf>,
    },
    /// Run one host's instance of a runbook under the debugger, from the start: it stops before
    /// the first action (or at the first breakpoint). Journals apart from any run.
    Debug {
        /// The runbook.
        runbook: PathBuf,
        /// The inventory (TOML).
        #[arg(short, long)]
        inventory: PathBuf,
        /// The inventory host to run it on.
        #[arg(long)]
        host: String,
        /// A parameter: NAME=VALUE (repeatable).
        #[arg(long = "param", value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// Stop before an action on this runbook line, or at this stage (repeatable).
        #[arg(long = "break", value_name = "LINE|MODULE:LINE|STAGE")]
        breakpoints: Vec<String>,
    },
    /// Print a host's journal: its timeline, or the records as JSON lines.
    Journal {
        /// `[RUN-ID] HOST`: the run (default: the newest) and the host.
        #[arg(required = true, num_args = 1..=2, value_names = ["RUN-ID", "HOST"])]
        run_and_host: Vec<String>,
        /// Print the records as JSON lines.
        #[arg(long)]
        json: bool,
    },
    /// Parse a vendor tool's output and print it as JSON.
    Parse {
        /// The parser (see --list).
        #[arg(required_unless_present = "list")]
        tool: Option<String>,
        /// The output file, or `-` for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// List the parsers.
        #[arg(long)]
        list: bool,
    },
    /// Continue a run that stopped: replay what finished, settle what was interrupted, go on.
    Resume {
        /// The run (default: the newest unfinished one in the state folder).
        run_id: Option<String>,
        /// For actions that started but whose outcome was not recorded: `done` records them as
        /// done, `redo` runs them again. `HOST=done|redo` answers for one host (repeatable); a
        /// bare answer covers every host not named.
        #[arg(long, value_name = "[HOST=]done|redo")]
        assume: Vec<String>,
        /// A host whose journal is lost (missing, empty, no header): run it again from scratch,
        /// every action included (repeatable).
        #[arg(long, value_name = "HOST")]
        restart_host: Vec<String>,
        /// Forget what the journals hold from this stage on, and run it again (after an edit).
        #[arg(long, value_name = "STAGE")]
        from_stage: Option<String>,
        #[command(flatten)]
        common: CommonRunArgs,
    },
    /// Run a runbook on the hosts of an inventory (always a new run).
    Run {
        /// The runbook.
        runbook: PathBuf,
        /// The inventory (TOML).
        #[arg(short, long)]
        inventory: PathBuf,
        /// Report per host what would change and which reboots would follow; change nothing.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        common: CommonRunArgs,
    },
    /// List runs and their state.
    Runs,
    /// Try builtins on one host: rhai lines in a persistent scope, with completion and help.
    Repl {
        /// The inventory (with --host).
        #[arg(short, long, requires = "host", conflicts_with = "sim")]
        inventory: Option<PathBuf>,
        /// The inventory host to start on.
        #[arg(long)]
        host: Option<String>,
        /// A throwaway simulated host instead: MODEL or MODEL?option=value&... (e.g. esxi7).
        #[arg(long, value_name = "MODEL")]
        sim: Option<String>,
    },
}

/// Options shared by `run` and `resume`.
#[derive(Debug, Args)]
pub(crate) struct CommonRunArgs {
    /// A parameter: NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// At most this many hosts act at once.
    #[arg(long)]
    pub(crate) forks: Option<usize>,
    /// Stop the run (cleanly, resumable) once more than this percentage of hosts have failed.
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub(crate) max_fail_percent: Option<u8>,
    /// At most this many hosts unavailable at once (rebooting, in maintenance mode, or failed):
    /// a count or a percentage of the run's hosts, `4` or `25%`.
    #[arg(long, value_name = "N|P%", value_parser = cairn_runtime::MaxUnavailable::parse)]
    pub(crate) max_unavailable: Option<cairn_runtime::MaxUnavailable>,
    /// Seconds a rebooting host may take to come back.
    #[arg(long, value_name = "SECS")]
    pub(crate) reboot_timeout: Option<u64>,
    /// Print one JSON event per line instead of progress.
    #[arg(long)]
    pub(crate) json: bool,
    /// When an action fails, open the REPL on that host: `:retry`, `:skip [VALUE]` or
    /// `:abort` (needs a terminal; not with --json, whose lines it would interrupt).
    #[arg(long, conflicts_with = "json")]
    pub(crate) debug_on_failure: bool,
    /// SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key
    /// is still refused).
    #[arg(long)]
    pub(crate) accept_new_host_keys: bool,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
