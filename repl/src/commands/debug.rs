//! `cairn debug`: the REPL on an inventory host with the runbook loaded, stopped before its
//! first action (or run to the first breakpoint).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::repl::{self, DebugStart, Target};

pub(crate) fn debug(
    state: &Path,
    runbook: PathBuf,
    inventory: &Path,
    host: String,
    params: &[String],
    breakpoints: Vec<String>,
) -> miette::Result<ExitCode> {
    let hosts = repl::inventory_hosts(inventory)?;
    if !hosts.iter().any(|h| h.name == host) {
        return Err(miette::miette!(
            help = format!(
                "its hosts: {}",
                hosts
                    .iter()
                    .map(|h| h.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "no host `{host}` in {}",
            inventory.display()
        ));
    }
    let start = DebugStart {
        breakpoints,
        params: super::run::params(params)?,
        runbook,
    };
    repl::run(state, Target::Inventory { hosts, start: host }, Some(start))?;
    Ok(ExitCode::SUCCESS)
}
