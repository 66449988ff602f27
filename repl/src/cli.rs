//! The command line, as clap parses it.

use std::path::PathBuf;

use std::process::ExitCode;

use crate::config::Config;
use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::{
    CheckArgs, CompletionsArgs, Context, DebugArgs, ExecArgs, HostsArgs, JoinArgs, JournalArgs,
    ManArgs, OptionInfo, ParseArgs, RecipesArgs, ReplArgs, ReportArgs, ResumeArgs, RunArgs,
    RunsArgs, StandbyArgs, VaultArgs,
};

/// How `cairn` exits, as the README's table says it (tests/src/readme.rs compares the two).
const EXIT_CODES: &str = "\
Exit codes:
  0    every host succeeded
  1    some host failed
  2    a usage, runbook or journal error
  3    `cairn standby --once` found no run whose controller died; `cairn join` no share to drive
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
    /// Drive a share of a run that `cairn run --controllers N --store URL` cut between
    /// controllers (docs/fleet.md).
    Join(JoinArgs),
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
    /// Watch a shared store and resume each run whose controller died holding hosts, so a
    /// maintenance window survives the loss of the machine that drove it (docs/fleet.md).
    Standby(StandbyArgs),
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

impl Cli {
    /// Runs the chosen subcommand with the config files' values. `Ok` carries the exit code:
    /// 0 all hosts succeeded, 1 some host failed, 130 a signal stopped the run; errors exit 2.
    pub(crate) fn execute(
        self,
        config: Config,
        options: Vec<OptionInfo>,
    ) -> miette::Result<ExitCode> {
        crate::assembly::set_lib_path(self.lib);
        let context = Context {
            state: self.state_dir,
            config,
            options,
        };
        self.command.execute(&context)
    }
}

impl Command {
    fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        match self {
            Self::Check(args) => args.execute(context),
            Self::Completions(args) => args.execute(Cli::command()),
            Self::Config => crate::commands::config(context),
            Self::Debug(args) => args.execute(context),
            Self::Exec(args) => args.execute(context),
            Self::Hosts(args) => args.execute(context),
            Self::Journal(args) => args.execute(context),
            Self::Join(args) => args.execute(context),
            Self::Lsp => crate::commands::lsp(),
            Self::Man(args) => args.execute(Cli::command()),
            Self::Parse(args) => args.execute(),
            Self::Recipes(args) => args.execute(context),
            Self::Repl(args) => args.execute(context),
            Self::Report(args) => args.execute(context),
            Self::Resume(args) => args.execute(context),
            Self::Run(args) => args.execute(context),
            Self::Runs(args) => args.execute(context),
            Self::Standby(args) => args.execute(context),
            Self::Vault(args) => args.execute(),
        }
    }
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
