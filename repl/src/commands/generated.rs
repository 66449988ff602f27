//! `cairn completions SHELL` and `cairn man DIR`: made by clap_complete and clap_mangen from the
//! command line's own declaration, so they cannot drift from it (tests/src/generated.rs
//! checks the copies in docs/ are current).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use miette::IntoDiagnostic;

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
    /// Prints the script for `cli`, the command line's declaration.
    pub(crate) fn execute(self, cli: clap::Command) -> miette::Result<ExitCode> {
        completions(self.shell, cli)
    }
}

impl ManArgs {
    /// Writes the pages of `cli`, the command line's declaration.
    pub(crate) fn execute(self, cli: clap::Command) -> miette::Result<ExitCode> {
        man(&self.dir, cli)
    }
}

/// The shell's completion script, on standard output. Made from the declaration alone, not
/// from a config file's defaults, so it is the same everywhere.
fn completions(shell: clap_complete::Shell, mut cli: clap::Command) -> miette::Result<ExitCode> {
    clap_complete::generate(shell, &mut cli, "cairn", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// One man page per command and subcommand, into `dir`.
fn man(dir: &Path, cli: clap::Command) -> miette::Result<ExitCode> {
    std::fs::create_dir_all(dir)
        .into_diagnostic()
        .map_err(|e| e.wrap_err(format!("cannot create {}", dir.display())))?;
    clap_mangen::generate_to(cli, dir)
        .into_diagnostic()
        .map_err(|e| e.wrap_err(format!("cannot write the man pages into {}", dir.display())))?;
    say!("man pages written into {}", dir.display());
    Ok(ExitCode::SUCCESS)
}
