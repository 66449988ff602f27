//! `cairn`: run, resume, check and inspect runbooks.

/// `println!` that stays quiet when standard output is closed (`cairn run ... | head`): a run
/// goes on to its end, since its journal, not its output, is the record.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod arg_groups;
mod assembly;
mod cli;
mod commands;
mod config;
mod defaults;
mod exec_run;
mod pack_of_runbook;
mod param_diff;
mod progress;
mod repl;
mod store_args;
mod terminal;
mod timeline;

use std::process::ExitCode;

fn main() -> ExitCode {
    match defaults::parse().and_then(|parsed| parsed.cli.execute(parsed.config, parsed.options)) {
        Ok(code) => code,
        Err(report) => {
            if is_broken_pipe(&report) {
                return ExitCode::SUCCESS;
            }
            eprintln!("{report:?}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(report: &miette::Report) -> bool {
    report
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
