//! The option groups several subcommands share (`#[command(flatten)]`), declared once so that
//! `-i`, the vault's key and the run options read the same everywhere.

use std::path::PathBuf;

use clap::{ArgAction, Args, ValueEnum};

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
#[derive(Debug, Clone, Args)]
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

/// Options shared by `run` and `resume`: what may change a run, and how it is driven.
#[derive(Debug, Clone, Args)]
pub(crate) struct CommonRunArgs {
    /// A parameter: NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub(crate) params: Vec<String>,
    /// Params from a TOML file (`name = value` per line); `--param` wins over it.
    #[arg(long, value_name = "FILE")]
    pub(crate) param_file: Option<PathBuf>,
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
    /// When an action fails, open the REPL on that host: `:retry`, `:skip [VALUE]` or
    /// `:abort` (needs a terminal; not with --json, whose lines it would interrupt).
    #[arg(long, conflicts_with = "json")]
    pub(crate) debug_on_failure: bool,
    #[command(flatten)]
    pub(crate) drive: DriveArgs,
}

impl CommonRunArgs {
    /// A resume that keeps the run's own params and options (a standby's, a join's): nothing
    /// changed, nobody at the terminal to debug a failure, and `drive` as its way of driving.
    pub(crate) fn run_own(drive: DriveArgs) -> Self {
        Self {
            params: Vec::new(),
            param_file: None,
            forks: None,
            max_fail_percent: None,
            max_unavailable: None,
            reboot_timeout: None,
            debug_on_failure: false,
            drive,
        }
    }
}

/// How this controller drives a run, not what the run does: secrets, SSH keys, held hosts and
/// the display; `run`, `resume` and `standby` share them.
#[derive(Debug, Clone, Args)]
pub(crate) struct DriveArgs {
    /// A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its
    /// secrets of their names, and hosts' `password_vault` and `identity_passphrase_vault` vars
    /// name secrets in it.
    #[arg(long, value_name = "FILE")]
    pub(crate) vault: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) vault_key: VaultKeyArgs,
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
    /// SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key
    /// is still refused).
    #[arg(long)]
    pub(crate) accept_new_host_keys: bool,
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
