//! `cairn hosts -i INVENTORY [PATTERN]`: what a `--limit` pattern matches, under its groups.

use std::process::ExitCode;

use cairn_runtime::inventory::{HostPattern, HostSpec, host_graph};
use clap::Args;

use super::Context;
use crate::arg_groups::InventoryFile;

/// `cairn hosts -i INVENTORY [PATTERN]`.
#[derive(Debug, Args)]
pub(crate) struct HostsArgs {
    #[command(flatten)]
    inventory: InventoryFile,
    /// Names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to exclude, `&` to
    /// intersect, separated by `:` or `,` (default: every host).
    pattern: Option<String>,
}

impl HostsArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let inventory =
            crate::assembly::launcher(&context.state).inventory(self.inventory.path())?;
        let selected: Vec<&HostSpec> = match &self.pattern {
            Some(pattern) => HostPattern::parse(pattern)?.select(&inventory)?,
            None => inventory.hosts().iter().collect(),
        };
        for line in host_graph(&inventory, &selected) {
            say!("{line}");
        }
        Ok(ExitCode::SUCCESS)
    }
}
