//! `cairn check`: compile a runbook and check it, and its stages' groups against an inventory;
//! runs nothing.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::inventory::{HostPattern, Inventory};
use cairn_runtime::{Runbook, build_engine, check_groups, check_runbook};

pub(crate) fn check(
    state: &Path,
    path: &Path,
    inventory: Option<&Path>,
    limit: Option<&str>,
) -> miette::Result<ExitCode> {
    let launcher = crate::assembly::launcher(state);
    let runbook = Runbook::load(path)?.with_lib_path(&launcher.lib_path);
    let engine = build_engine(&runbook.imports(), &launcher.libraries, u64::MAX);
    let ast = runbook.compile(&engine)?;
    let mut problems = check_runbook(&engine, &ast, &runbook);
    if let Some(inventory) = inventory {
        let check = |address: &_| cairn_runtime::sim::check_address(&launcher.sim_models, address);
        let inventory = Inventory::load_checked(inventory, Some(&check))?;
        if let Some(limit) = limit {
            let selected = HostPattern::parse(limit)?.select(&inventory)?;
            let names: Vec<&str> = selected.iter().map(|h| h.name.as_str()).collect();
            say!(
                "--limit {limit}: {} host(s): {}",
                names.len(),
                names.join(", ")
            );
        }
        let groups = check_groups(&ast, &runbook, &inventory);
        problems.extend(groups.errors);
        for warning in groups.warnings {
            eprintln!("warning: {warning}");
        }
    }
    let count = problems.len();
    for problem in problems {
        eprintln!("{:?}", miette::Report::new(problem));
    }
    if count == 0 {
        say!("{}: ok", runbook.name());
        Ok(ExitCode::SUCCESS)
    } else {
        Err(miette::miette!("{count} problem(s) in {}", runbook.name()))
    }
}
