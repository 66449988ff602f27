//! `cairn exec -i INVENTORY PATTERN -- COMMAND ARGS...`: the command as a one-stage run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use miette::IntoDiagnostic;

use crate::cli::CommonRunArgs;

pub(crate) fn exec(
    state: &Path,
    inventory: PathBuf,
    pattern: &str,
    command: &[String],
    read_only: bool,
    common: CommonRunArgs,
) -> miette::Result<ExitCode> {
    let runbook = cairn_runtime::write_exec_runbook(state, command, read_only).into_diagnostic()?;
    super::run::run(state, runbook, inventory, false, Some(pattern), common)
}
