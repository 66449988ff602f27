//! `cairn hosts -i INVENTORY [PATTERN]`: what a `--limit` pattern matches, under its groups.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::inventory::{HostPattern, HostSpec, host_graph};

pub(crate) fn hosts(
    state: &Path,
    inventory: &Path,
    pattern: Option<&str>,
) -> miette::Result<ExitCode> {
    let inventory = crate::assembly::launcher(state).inventory(inventory)?;
    let selected: Vec<&HostSpec> = match pattern {
        Some(pattern) => HostPattern::parse(pattern)?.select(&inventory)?,
        None => inventory.hosts().iter().collect(),
    };
    for line in host_graph(&inventory, &selected) {
        say!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
