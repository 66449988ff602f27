//! `cairn completions SHELL` and `cairn man DIR`: made by clap_complete and clap_mangen from the
//! command line's own declaration, so they cannot drift from it (tests/src/generated.rs
//! checks the copies in docs/ are current).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory};
use miette::IntoDiagnostic;

use crate::cli::Cli;

/// `cairn completions SHELL`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `cairn man [DIR]`.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// The folder to write them into.
    #[arg(default_value = "docs/man")]
    dir: PathBuf,
}

impl CompletionsArgs {
    pub(crate) fn execute(self) -> miette::Result<ExitCode> {
        completions(self.shell)
    }
}

impl ManArgs {
    pub(crate) fn execute(self) -> miette::Result<ExitCode> {
        man(&self.dir)
    }
}

/// The shell's completion script, on standard output. Made from the declaration alone, not
/// from a config file's defaults, so it is the same everywhere.
fn completions(shell: clap_complete::Shell) -> miette::Result<ExitCode> {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "cairn", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// One man page per command and subcommand, into `dir`.
fn man(dir: &Path) -> miette::Result<ExitCode> {
    std::fs::create_dir_all(dir)
        .into_diagnostic()
        .map_err(|e| e.wrap_err(format!("cannot create {}", dir.display())))?;
    clap_mangen::generate_to(Cli::command(), dir)
        .into_diagnostic()
        .map_err(|e| e.wrap_err(format!("cannot write the man pages into {}", dir.display())))?;
    say!("man pages written into {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
