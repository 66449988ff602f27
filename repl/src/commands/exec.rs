//! `cairn exec -i INVENTORY PATTERN -- COMMAND ARGS...`: the command as a one-stage run.

use std::process::ExitCode;

use clap::Args;
use miette::IntoDiagnostic;

use super::Context;
use super::run::RunArgs;
use crate::arg_groups::{CommonRunArgs, InventoryFile};

/// `cairn exec -i INVENTORY PATTERN [--read-only] -- COMMAND ARGS...`.
#[derive(Debug, Args)]
pub(crate) struct ExecArgs {
    #[command(flatten)]
    inventory: InventoryFile,
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
}

impl ExecArgs {
    /// Writes the one-stage runbook under the state folder and runs it on the pattern's hosts.
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let runbook =
            crate::exec_run::write_exec_runbook(&context.state, &self.command, self.read_only)
                .into_diagnostic()?;
        let run = RunArgs {
            runbook,
            inventory: self.inventory,
            check: false,
            limit: Some(self.pattern),
            controllers: 1,
            common: self.common,
            store: crate::store_args::StoreArgs::none(),
        };
        run.start(context)
    }
}
