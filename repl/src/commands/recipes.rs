//! `cairn recipes`: the recipes of the built-in and installed packs, packing, installing,
//! verifying and locking packs, and a recipe named where a runbook is.

mod diff;
mod install;
mod pack;
mod show;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairn_packs::{Context, Store, find};

use crate::cli::RecipesCommand;

pub(crate) fn recipes(state: &Path, command: RecipesCommand) -> miette::Result<ExitCode> {
    let context = context()?;
    match command {
        RecipesCommand::List => list(&context)?,
        RecipesCommand::Lab { recipe } => {
            let packs = context.packs()?;
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
        RecipesCommand::Pack { dir, output } => pack::pack(&dir, &output)?,
        RecipesCommand::Install {
            source,
            allow_unsigned,
        } => install::install(state, &context, &source, allow_unsigned)?,
        RecipesCommand::Verify => verify::verify(&context)?,
        RecipesCommand::Lock => verify::lock(&context)?,
        RecipesCommand::Show {
            recipe,
            json,
            markdown,
        } => show::show(state, &context, &recipe, show::Form::of(json, markdown))?,
        RecipesCommand::Diff { old, new } => return diff::diff(&old, &new),
    }
    Ok(ExitCode::SUCCESS)
}

fn list(context: &Context) -> miette::Result<()> {
    for pack in &context.packs()? {
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
    Ok(())
}

/// The packs folder, the trusted keys and the project's constraints and lock, from here.
fn context() -> miette::Result<Context> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = cairn_runtime::config::project_file(&cwd);
    let user = cairn_runtime::config::user_file();
    Ok(Context::load(project, user, Store::locate())?)
}

/// The runbook file `runbook` means: the file, else a built-in or installed recipe, its pack
/// written once under the state folder's `packs/`.
pub(crate) fn runbook_file(state: &Path, runbook: &Path) -> miette::Result<PathBuf> {
    let looks_like_a_file = runbook.is_file() || runbook.extension().is_some_and(|e| e == "rhai");
    if looks_like_a_file {
        return Ok(runbook.to_path_buf());
    }
    let packs = context()?.packs()?;
    Ok(cairn_packs::runbook_file(
        runbook,
        &packs,
        &state.join("packs"),
    )?)
}
