//! One file per subcommand; this one dispatches.

mod ask_undecided;
mod check;
mod debug;
mod exec;
mod hosts;
mod journal;
mod parse;
mod repl;
mod report;
mod run;
mod runs;
mod vault;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// Runs the chosen subcommand. `Ok` carries the exit code: 0 all hosts succeeded, 1 some host
/// failed; errors exit 2.
pub(crate) fn execute(cli: Cli) -> miette::Result<ExitCode> {
    let state = cli.state_dir;
    match cli.command {
        Command::Check {
            runbook,
            inventory,
            limit,
        } => check::check(&state, &runbook, inventory.as_deref(), limit.as_deref()),
        Command::Exec {
            inventory,
            pattern,
            command,
            read_only,
            common,
        } => exec::exec(&state, inventory, &pattern, &command, read_only, common),
        Command::Hosts { inventory, pattern } => {
            hosts::hosts(&state, &inventory, pattern.as_deref())
        }
        Command::Debug {
            runbook,
            inventory,
            host,
            params,
            breakpoints,
        } => debug::debug(&state, runbook, &inventory, host, &params, breakpoints),
        Command::Journal {
            mut run_and_host,
            json,
        } => {
            let host = run_and_host.pop().unwrap_or_default();
            journal::journal(&state, run_and_host.pop(), &host, json)
        }
        Command::Parse { tool, file, list } => parse::parse(tool.as_deref(), &file, list),
        Command::Resume {
            run_id,
            assume,
            restart_host,
            from_stage,
            runbook,
            common,
        } => run::resume(
            &state,
            run_id,
            &assume,
            restart_host,
            (from_stage, runbook),
            common,
        ),
        Command::Run {
            runbook,
            inventory,
            check,
            limit,
            common,
        } => run::run(&state, runbook, inventory, check, limit.as_deref(), common),
        Command::Report { run_id, output } => report::report(&state, run_id.as_deref(), &output),
        Command::Runs { json } => runs::runs(&state, json),
        Command::Vault { action } => vault::vault(action),
        Command::Repl {
            inventory,
            host,
            sim,
        } => repl::repl(&state, inventory.as_deref(), host, sim.as_deref()),
    }
}
