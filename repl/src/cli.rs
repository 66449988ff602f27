//! The command line, as clap parses it.

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

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

#[derive(Debug, Subcommand)]
pub(crate) enum RecipesCommand {
    /// Every recipe: its name, pack, version and lab, and each pack's content id.
    List,
    /// Print a recipe's simulated lab (an inventory): `cairn recipes lab NAME > lab.toml`.
    Lab {
        /// The recipe: a name one pack has, or `namespace/pack:recipe`.
        recipe: String,
    },
    /// Write a pack folder as a `.cairnpack` archive (a deterministic tar), writing its `FILES`
    /// list first; sign that list with `minisign -S -m DIR/FILES -t "cairn-pack NAME VERSION"`
    /// and pack again to ship the signature too.
    Pack {
        /// The pack's folder, with its `cairn-pack.toml`.
        dir: PathBuf,
        /// The archive to write.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Verify a pack (archive or folder), check its recipes against this cairn and store it
    /// in the packs folder (`$CAIRN_HOME/packs`, else `$XDG_DATA_HOME/cairn/packs`), beside
    /// its other versions.
    Install {
        /// The `.cairnpack` archive or the pack's folder.
        source: PathBuf,
        /// Install a pack with no `FILES.minisig`.
        #[arg(long)]
        allow_unsigned: bool,
    },
    /// Re-hash every installed pack against its `FILES`, check its signature, and check the
    /// project's `cairn.lock` against what is installed.
    Verify,
    /// Resolve `cairn.toml`'s `[packs.require]` to installed versions and write `cairn.lock`.
    Lock,
    /// A recipe's usage, description and params (from its `///` comments), lab, pack and
    /// signer.
    Show {
        /// The recipe: a name one pack has, or `namespace/pack:recipe`.
        recipe: String,
        /// Print a JSON Schema of its params instead.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print its params as a Markdown table instead (docs/recipes.md's tables).
        #[arg(long)]
        markdown: bool,
    },
    /// Say whether a pack's new version changes its params by a major, minor or patch step;
    /// exits 1 when its version number claims less.
    Diff {
        /// The old version: a `.cairnpack` archive or a pack folder.
        old: PathBuf,
        /// The new version.
        new: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Check a runbook without running anything: syntax, unknown functions and modules, argument
    /// counts and literal types, option keys, params and stages declared once, stages not
    /// nested, actions inside stages, imports; with an inventory, the stages' groups too.
    Check {
        /// The runbook, or a recipe: a name one pack has, or `namespace/pack:recipe`.
        runbook: PathBuf,
        /// The inventory (TOML) whose groups the stages must name.
        #[arg(short, long)]
        inventory: Option<PathBuf>,
        /// Only these hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to
        /// exclude, `&` to intersect, separated by `:` or `,` (as Ansible's patterns).
        #[arg(long, value_name = "PATTERN", requires = "inventory")]
        limit: Option<String>,
        /// How to print the problems: for people, or one JSON object per line (file, line,
        /// column, code, message, help) for editors and CI annotations.
        #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
        format: CheckFormat,
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
    /// Run one command on every host a pattern selects, as a one-stage run (journaled, listed
    /// by `cairn runs`, resumable): `cairn exec -i lab.toml 'esx*' -- esxcli software vib list`.
    Exec {
        /// The inventory (TOML).
        #[arg(short, long)]
        inventory: PathBuf,
        /// The hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to exclude,
        /// `&` to intersect, separated by `:` or `,`.
        pattern: String,
        /// The command and its arguments, each reaching the host as one word (no shell).
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<String>,
        /// A query that changes nothing: reported ok, not as a change.
        #[arg(long)]
        read_only: bool,
        #[command(flatten)]
        common: CommonRunArgs,
    },
    /// List the hosts of an inventory a pattern matches, under their groups.
    Hosts {
        /// The inventory (TOML).
        #[arg(short, long)]
        inventory: PathBuf,
        /// Names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to exclude, `&` to
        /// intersect, separated by `:` or `,` (default: every host).
        pattern: Option<String>,
    },
    /// Serve the Language Server Protocol on standard input and output, for editors:
    /// diagnostics from `cairn check`, completion, hover, signature help, definitions and the
    /// outline of runbooks and their modules (docs/editors.md).
    Lsp,
    /// Print a host's journal: its timeline, or the records as JSON lines.
    #[command(override_usage = "cairn journal [OPTIONS] [RUN-ID] <HOST>")]
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
        /// Forget what the journals hold from this stage on, and run it again (after an edit):
        /// its number in the progress (`1` is the first), its name, or a unique prefix of it.
        #[arg(long, value_name = "STAGE")]
        from_stage: Option<String>,
        /// The run's runbook, moved since the run started: accepted if its content is the same.
        #[arg(long, value_name = "PATH")]
        runbook: Option<PathBuf>,
        #[command(flatten)]
        common: CommonRunArgs,
    },
    /// Run a runbook on the hosts of an inventory (always a new run).
    Run {
        /// The runbook, or a recipe: a name one pack has, or `namespace/pack:recipe`.
        runbook: PathBuf,
        /// The inventory (TOML).
        #[arg(short, long)]
        inventory: PathBuf,
        /// Report per host what would change and which reboots would follow; change nothing.
        #[arg(long)]
        check: bool,
        /// Only these hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to
        /// exclude, `&` to intersect, separated by `:` or `,` (as Ansible's patterns). A resume
        /// drives the hosts the run started with.
        #[arg(long, value_name = "PATTERN")]
        limit: Option<String>,
        #[command(flatten)]
        common: CommonRunArgs,
    },
    /// Write a run's report: one self-contained HTML page (verdict, what changed, summary,
    /// recap, failures, attempts, timeline, perftest and sockperf plots, fleet facts), made
    /// from its journals alone; or the same page as a PDF.
    Report {
        /// The run (default: the newest).
        run_id: Option<String>,
        /// The file to write (default: report.html, or report.pdf with --pdf).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print the page to PDF with headless Chromium (for a change ticket).
        #[arg(long)]
        pdf: bool,
    },
    /// The recipes of the packs this cairn has (the shipped ones are built in): list them,
    /// print a recipe's simulated lab.
    Recipes {
        #[command(subcommand)]
        command: RecipesCommand,
    },
    /// List runs and their state.
    Runs {
        /// One JSON object per run (docs/events.md).
        #[arg(long)]
        json: bool,
    },
    /// Print a shell's completion script: `cairn completions bash > /etc/bash_completion.d/cairn`
    /// (docs/completions/ has them generated).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages, one per subcommand (`cairn.1`, `cairn-run.1`, ...), into a folder
    /// (docs/man/ has them generated).
    Man {
        /// The folder to write them into.
        #[arg(default_value = "docs/man")]
        dir: PathBuf,
    },
    /// Print each option a config file may set (`[defaults]` in `cairn.toml`, found upwards
    /// from here, and the user's `~/.config/cairn/config.toml`), its value, and where it came
    /// from.
    Config,
    /// Keep secrets in an encrypted file beside the runbooks (age; docs/vault.md): `--vault
    /// FILE` gives them to `secret(...)` params and to hosts' `password_vault`.
    Vault {
        #[command(subcommand)]
        action: VaultAction,
    },
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

/// `cairn vault ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum VaultAction {
    /// Write a new vault: its secrets in $VISUAL or $EDITOR, in a private file on a memory file
    /// system removed after.
    Create {
        /// The vault file.
        file: PathBuf,
        #[command(flatten)]
        key: VaultKeyArgs,
    },
    /// Change a vault's secrets in $VISUAL or $EDITOR; sealed again with the same key.
    Edit {
        /// The vault file.
        file: PathBuf,
        #[command(flatten)]
        key: VaultKeyArgs,
    },
    /// Print a vault's secrets.
    View {
        /// The vault file.
        file: PathBuf,
        #[command(flatten)]
        key: VaultKeyArgs,
    },
    /// Seal a vault with another key (`--new-identity`, `--new-passphrase-file`,
    /// `--new-passphrase-command`; none: a new passphrase asked on the terminal).
    Rekey {
        /// The vault file.
        file: PathBuf,
        #[command(flatten)]
        key: VaultKeyArgs,
        /// The new key: an age identity file.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["new_passphrase_file", "new_passphrase_command"])]
        new_identity: Option<PathBuf>,
        /// The new key: a passphrase, the first line of this file.
        #[arg(long, value_name = "FILE", conflicts_with = "new_passphrase_command")]
        new_passphrase_file: Option<PathBuf>,
        /// The new key: a passphrase, the first line this shell command prints.
        #[arg(long, value_name = "COMMAND")]
        new_passphrase_command: Option<String>,
    },
    /// Write a new age identity file (`0600`) to seal vaults with; prints its public key.
    Keygen {
        /// The identity file to write.
        file: PathBuf,
    },
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

/// `--forks N`: a count of at least 1 (0 would start no host, and the run would wait forever).
/// A `--lib` folder must be there: a mistyped one would only show as a module not found later.
fn lib_dir(text: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(text);
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(format!("`{text}` is not a folder"))
    }
}

fn forks(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least 1 host must act at once".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("not a count: {e}")),
    }
}

/// `cairn check --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    /// Diagnostics with the source lines, on standard error.
    Human,
    /// One JSON object per problem on standard output (docs/editors.md).
    Json,
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
