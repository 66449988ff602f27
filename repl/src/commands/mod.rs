//! One file per subcommand, each with its arguments' struct and the `execute` that runs it;
//! this one dispatches.

mod ask_undecided;
mod check;
mod config;
mod debug;
mod exec;
mod generated;
mod hosts;
mod join;
mod journal;
mod lsp;
mod parse;
mod recipes;
mod repl;
mod report;
mod resume;
mod run;
mod runs;
mod standby;
mod vault;

pub(crate) use check::CheckArgs;
pub(crate) use config::{OptionInfo, config};
pub(crate) use debug::DebugArgs;
pub(crate) use exec::ExecArgs;
pub(crate) use generated::{CompletionsArgs, ManArgs};
pub(crate) use hosts::HostsArgs;
pub(crate) use join::JoinArgs;
pub(crate) use journal::JournalArgs;
pub(crate) use lsp::lsp;
pub(crate) use parse::ParseArgs;
pub(crate) use recipes::RecipesArgs;
pub(crate) use repl::ReplArgs;
pub(crate) use report::ReportArgs;
pub(crate) use resume::ResumeArgs;
pub(crate) use run::RunArgs;
pub(crate) use runs::RunsArgs;
pub(crate) use standby::StandbyArgs;
use std::path::PathBuf;
pub(crate) use vault::VaultArgs;

use crate::config::Config;

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
