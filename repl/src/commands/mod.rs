//! One file per subcommand; this one dispatches.

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
mod run;
mod runs;
mod vault;

use std::process::ExitCode;

use crate::cli::Command;
use crate::defaults::Parsed;

/// Runs the chosen subcommand. `Ok` carries the exit code: 0 all hosts succeeded, 1 some host
/// failed, 130 a signal stopped the run; errors exit 2.
pub(crate) fn execute(parsed: Parsed) -> miette::Result<ExitCode> {
    let Parsed {
        cli,
        config,
        options,
    } = parsed;
    let state = cli.state_dir;
    crate::assembly::set_lib_path(cli.lib);
    match cli.command {
        Command::Completions { shell } => generated::completions(shell),
        Command::Config => config::config(&config, &options),
        Command::Man { dir } => generated::man(&dir),
        Command::Check {
            runbook,
            inventory,
            limit,
            format,
        } => {
            let runbook = recipes::runbook_file(&state, &runbook)?;
            check::check(
                &state,
                &runbook,
                inventory.as_deref(),
                limit.as_deref(),
                format,
            )
        }
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
        Command::Lsp => lsp::lsp(),
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
        } => {
            let runbook = recipes::runbook_file(&state, &runbook)?;
            run::run(&state, runbook, inventory, check, limit.as_deref(), common)
        }
        Command::Report {
            run_id,
            output,
            pdf,
        } => report::report(&state, run_id.as_deref(), output, pdf),
        Command::Recipes { command } => recipes::recipes(&state, command),
        Command::Runs { json } => runs::runs(&state, json),
        Command::Vault { action } => vault::vault(action),
        Command::Repl {
            inventory,
            host,
            sim,
        } => {
            // A config file's inventory does not apply to a throwaway simulated host (clap
            // still refuses `-i` given with `--sim`).
            let inventory = inventory.filter(|_| sim.is_none());
            repl::repl(&state, inventory.as_deref(), host, sim.as_deref())
        }
    }
}
