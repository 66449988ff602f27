//! One file per subcommand, each with its arguments' struct and the `execute` that runs it;
//! this one dispatches.

mod ask_undecided;
mod check;
mod config;
mod debug;
mod exec;
mod generated;
mod hosts;
mod journal;
mod lsp;
mod parse;
mod recipes;
mod repl;
mod report;
mod resume;
mod run;
mod runs;
mod vault;

use std::path::PathBuf;
use std::process::ExitCode;

pub(crate) use check::CheckArgs;
pub(crate) use debug::DebugArgs;
pub(crate) use exec::ExecArgs;
pub(crate) use generated::{CompletionsArgs, ManArgs};
pub(crate) use hosts::HostsArgs;
pub(crate) use journal::JournalArgs;
pub(crate) use parse::ParseArgs;
pub(crate) use recipes::RecipesArgs;
pub(crate) use repl::ReplArgs;
pub(crate) use report::ReportArgs;
pub(crate) use resume::ResumeArgs;
pub(crate) use run::RunArgs;
pub(crate) use runs::RunsArgs;
pub(crate) use vault::VaultArgs;

use cairn_runtime::config::Config;

use crate::cli::Command;
use crate::defaults::{OptionInfo, Parsed};

/// What a subcommand may need besides its own arguments: the global options and the config
/// files' values.
pub(crate) struct Context {
    /// `--state-dir`: where runs and simulated hosts keep their state.
    pub(crate) state: PathBuf,
    /// The config files read, for `cairn config`.
    pub(crate) config: Config,
    /// Each configurable option's built-in default and source, for `cairn config`.
    pub(crate) options: Vec<OptionInfo>,
}

/// Runs the chosen subcommand. `Ok` carries the exit code: 0 all hosts succeeded, 1 some host
/// failed, 130 a signal stopped the run; errors exit 2.
pub(crate) fn execute(parsed: Parsed) -> miette::Result<ExitCode> {
    let Parsed {
        cli,
        config,
        options,
    } = parsed;
    crate::assembly::set_lib_path(cli.lib);
    let context = Context {
        state: cli.state_dir,
        config,
        options,
    };
    cli.command.execute(&context)
}

impl Command {
    fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        match self {
            Self::Check(args) => args.execute(context),
            Self::Completions(args) => args.execute(),
            Self::Config => config::config(&context.config, &context.options),
            Self::Debug(args) => args.execute(context),
            Self::Exec(args) => args.execute(context),
            Self::Hosts(args) => args.execute(context),
            Self::Journal(args) => args.execute(context),
            Self::Lsp => lsp::lsp(),
            Self::Man(args) => args.execute(),
            Self::Parse(args) => args.execute(),
            Self::Recipes(args) => args.execute(context),
            Self::Repl(args) => args.execute(context),
            Self::Report(args) => args.execute(context),
            Self::Resume(args) => args.execute(context),
            Self::Run(args) => args.execute(context),
            Self::Runs(args) => args.execute(context),
            Self::Vault(args) => args.execute(),
        }
    }
}
