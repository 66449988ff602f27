//! `cairn debug`: the REPL on an inventory host with the runbook loaded, stopped before its
//! first action (or run to the first breakpoint).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::Context;
use crate::arg_groups::InventoryFile;
use crate::repl::{self, DebugStart, Target};

/// `cairn debug RUNBOOK -i INVENTORY --host HOST [--param NAME=VALUE] [--break WHERE]`.
#[derive(Debug, Args)]
pub(crate) struct DebugArgs {
    /// The runbook.
    runbook: PathBuf,
    #[command(flatten)]
    inventory: InventoryFile,
    /// The inventory host to run it on.
    #[arg(long)]
    host: String,
    /// A parameter: NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Stop before an action on this runbook line, or at this stage (repeatable).
    #[arg(long = "break", value_name = "LINE|MODULE:LINE|STAGE")]
    breakpoints: Vec<String>,
}

impl DebugArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let Self {
            runbook,
            inventory,
            host,
            params,
            breakpoints,
        } = self;
        let inventory = inventory.path();
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
            params: super::run::params(&params)?,
            runbook,
        };
        repl::run(
            &context.state,
            Target::Inventory { hosts, start: host },
            Some(start),
        )?;
        Ok(ExitCode::SUCCESS)
    }
}
