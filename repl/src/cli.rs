//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

use crate::commands::{
    CheckArgs, CompletionsArgs, DebugArgs, ExecArgs, HostsArgs, JournalArgs, ManArgs, ParseArgs,
    RecipesArgs, ReplArgs, ReportArgs, ResumeArgs, RunArgs, RunsArgs, VaultArgs,
};

/// How `cairn` exits, as the README's table says it (tests/src/readme.rs compares the two).
const EXIT_CODES: &str = "\
Exit codes:
  0    every host succeeded
  1    some host failed
  2    a usage, runbook or journal error
  130  stopped by a signal (SIGINT, SIGTERM, SIGHUP) before every host finished";

/// cairn: runbooks for InfiniBand and RoCE fabric on ESXi hosts and Linux guests.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    /// Where runs and simulated hosts keep their state.
    #[arg(long, global = true, default_value = ".cairn", env = "CAIRN_STATE_DIR")]
    pub(crate) state_dir: PathBuf,
    /// A folder runbooks' imports are looked up in after the importing file's folder and its
    /// pack's `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`).
    #[arg(long = "lib", global = true, value_name = "DIR", value_parser = lib_dir)]
    pub(crate) lib: Vec<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands; each one's arguments are its own struct, in its file under `commands/`,
/// with the `execute` that runs it.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check a runbook without running anything: syntax, unknown functions and modules, argument
    /// counts and literal types, option keys, params and stages declared once, stages not
    /// nested, actions inside stages, imports; with an inventory, the stages' groups too.
    Check(CheckArgs),
    /// Run one host's instance of a runbook under the debugger, from the start: it stops before
    /// the first action (or at the first breakpoint). Journals apart from any run.
    Debug(DebugArgs),
    /// Run one command on every host a pattern selects, as a one-stage run (journaled, listed
    /// by `cairn runs`, resumable): `cairn exec -i lab.toml 'esx*' -- esxcli software vib list`.
    Exec(ExecArgs),
    /// List the hosts of an inventory a pattern matches, under their groups.
    Hosts(HostsArgs),
    /// Serve the Language Server Protocol on standard input and output, for editors:
    /// diagnostics from `cairn check`, completion, hover, signature help, definitions and the
    /// outline of runbooks and their modules (docs/editors.md).
    Lsp,
    /// Print a host's journal: its timeline, or the records as JSON lines.
    #[command(override_usage = "cairn journal [OPTIONS] [RUN-ID] <HOST>")]
    Journal(JournalArgs),
    /// Parse a vendor tool's output and print it as JSON.
    Parse(ParseArgs),
    /// Continue a run that stopped: replay what finished, settle what was interrupted, go on.
    Resume(ResumeArgs),
    /// Run a runbook on the hosts of an inventory (always a new run).
    Run(RunArgs),
    /// Write a run's report: one self-contained HTML page (verdict, what changed, summary,
    /// recap, failures, attempts, timeline, perftest and sockperf plots, fleet facts), made
    /// from its journals alone; or the same page as a PDF.
    Report(ReportArgs),
    /// The recipes of the packs this cairn has (the shipped ones are built in): list them,
    /// print a recipe's simulated lab.
    Recipes(RecipesArgs),
    /// List runs and their state.
    Runs(RunsArgs),
    /// Print a shell's completion script: `cairn completions bash > /etc/bash_completion.d/cairn`
    /// (docs/completions/ has them generated).
    Completions(CompletionsArgs),
    /// Write the man pages, one per subcommand (`cairn.1`, `cairn-run.1`, ...), into a folder
    /// (docs/man/ has them generated).
    Man(ManArgs),
    /// Print each option a config file may set (`[defaults]` in `cairn.toml`, found upwards
    /// from here, and the user's `~/.config/cairn/config.toml`), its value, and where it came
    /// from.
    Config,
    /// Keep secrets in an encrypted file beside the runbooks (age; docs/vault.md): `--vault
    /// FILE` gives them to `secret(...)` params and to hosts' `password_vault`.
    Vault(VaultArgs),
    /// Try builtins on one host: rhai lines in a persistent scope, with completion and help.
    Repl(ReplArgs),
}

/// The inventory a command needs (`-i`), declared once for every command that needs one.
#[derive(Debug, Args)]
pub(crate) struct InventoryFile {
    /// The inventory (TOML).
    #[arg(short, long)]
    inventory: PathBuf,
}

impl InventoryFile {
    /// The inventory file.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.inventory
    }
}

/// A vault file and the key that opens it: `cairn vault create|edit|view|rekey FILE`.
#[derive(Debug, Args)]
pub(crate) struct VaultFile {
    /// The vault file.
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) key: VaultKeyArgs,
}

/// The key that opens a vault; none given: a passphrase asked on the terminal.
#[derive(Debug, Args)]
pub(crate) struct VaultKeyArgs {
    /// An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["vault_passphrase_file", "vault_passphrase_command"])]
    pub(crate) vault_identity: Option<PathBuf>,
    /// A passphrase: the first line of this file.
    #[arg(long, value_name = "FILE", conflicts_with = "vault_passphrase_command")]
    pub(crate) vault_passphrase_file: Option<PathBuf>,
    /// A passphrase: the first line this shell command prints (`pass show site/vault`).
    #[arg(long, value_name = "COMMAND")]
    pub(crate) vault_passphrase_command: Option<String>,
}

/// Options shared by `run` and `resume`.
#[derive(Debug, Args)]
pub(crate) struct CommonRunArgs {
    /// A parameter: NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Params from a TOML file (`name = value` per line); `--param` wins over it.
    #[arg(long, value_name = "FILE")]
    pub(crate) param_file: Option<PathBuf>,
    /// A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its
    /// secrets of their names, and hosts' `password_vault` and `identity_passphrase_vault` vars
    /// name secrets in it.
    #[arg(long, value_name = "FILE")]
    pub(crate) vault: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) vault_key: VaultKeyArgs,
    /// At most this many hosts act at once (at least 1).
    #[arg(long, value_parser = forks)]
    pub(crate) forks: Option<usize>,
    /// Stop the run (cleanly, resumable) once more than this percentage of hosts have failed.
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub(crate) max_fail_percent: Option<u8>,
    /// At most this many hosts unavailable at once (rebooting, in maintenance mode, or failed):
    /// a count or a percentage of the run's hosts, `4` or `25%`; per inventory group,
    /// `esxi=1,guests=2`; or both, `3,esxi=1`.
    #[arg(long, value_name = "N|P%|GROUP=N,...", value_parser = cairn_runtime::Budgets::parse)]
    pub(crate) max_unavailable: Option<cairn_runtime::Budgets>,
    /// Seconds a rebooting host may take to come back.
    #[arg(long, value_name = "SECS")]
    pub(crate) reboot_timeout: Option<u64>,
    /// Wait for hosts another run holds (shown as it waits), instead of refusing the run.
    #[arg(long)]
    pub(crate) wait_for_hosts: bool,
    /// Print one JSON event per line instead of progress (docs/events.md).
    #[arg(long)]
    pub(crate) json: bool,
    /// Print only changes, failures, warnings and the recap.
    #[arg(short, long, conflicts_with_all = ["verbose", "json"])]
    pub(crate) quiet: bool,
    /// `-v`: also each command an action runs and the output of failed actions; `-vv`: all
    /// output.
    #[arg(short, long, action = ArgAction::Count, conflicts_with = "json")]
    pub(crate) verbose: u8,
    /// Colour ok, changed and failed: `auto` on a terminal unless NO_COLOR is set.
    #[arg(long, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub(crate) color: Color,
    /// When an action fails, open the REPL on that host: `:retry`, `:skip [VALUE]` or
    /// `:abort` (needs a terminal; not with --json, whose lines it would interrupt).
    #[arg(long, conflicts_with = "json")]
    pub(crate) debug_on_failure: bool,
    /// SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key
    /// is still refused).
    #[arg(long)]
    pub(crate) accept_new_host_keys: bool,
}

/// A `--lib` folder must be there: a mistyped one would only show as a module not found later.
fn lib_dir(text: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(text);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!("`{text}` is not a folder"))
    }
}

/// `--forks N`: a count of at least 1 (0 would start no host, and the run would wait forever).
fn forks(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least 1 host must act at once".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a count: {e}")),
    }
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Color {
    /// On a terminal, unless NO_COLOR is set and not empty.
    Auto,
    /// Always, even into a pipe.
    Always,
    /// Never.
    Never,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
