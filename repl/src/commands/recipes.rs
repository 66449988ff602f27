//! `cairn recipes`: the recipes of the built-in packs, and a recipe named where a runbook is.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairn_packs::{Pack, find};

use crate::cli::RecipesCommand;

pub(crate) fn recipes(command: RecipesCommand) -> miette::Result<ExitCode> {
    let packs = Pack::builtin()?;
    match command {
        RecipesCommand::List => {
            for pack in &packs {
                let m = &pack.manifest;
                say!(
                    "{} {} ({}) {}",
                    m.name,
                    m.version,
                    pack.origin,
                    pack.content_id()
                );
                for (recipe, entry) in &m.recipes {
                    let lab = entry.lab.as_deref().unwrap_or("no lab");
                    say!("  {recipe:<32} {lab}");
                }
            }
        }
        RecipesCommand::Lab { recipe } => {
            let found = find(&packs, &recipe)?;
            let Some(lab) = found.pack.lab(found.recipe) else {
                return Err(miette::miette!(
                    "the recipe {} has no lab",
                    found.full_name()
                ));
            };
            use std::io::Write as _;
            let _ = std::io::stdout().write_all(lab.as_bytes());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The runbook file `runbook` means: the file, else a built-in recipe, its pack written once
/// under the state folder's `packs/`.
pub(crate) fn runbook_file(state: &Path, runbook: &Path) -> miette::Result<PathBuf> {
    let packs = Pack::builtin()?;
    Ok(cairn_packs::runbook_file(
        runbook,
        &packs,
        &state.join("packs"),
    )?)
}
