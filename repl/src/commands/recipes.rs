//! `cairn recipes`: the recipes of the built-in and installed packs, packing, installing,
//! verifying and locking packs, and a recipe named where a runbook is.

mod diff;
mod install;
mod pack;
mod show;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cairn_packs::{Context, PacksHome, find};
use clap::{Args, Subcommand};

/// `cairn recipes list|lab|pack|install|verify|lock|show|diff`.
#[derive(Debug, Args)]
pub(crate) struct RecipesArgs {
    #[command(subcommand)]
    command: RecipesCommand,
}

#[derive(Debug, Subcommand)]
enum RecipesCommand {
    /// Every recipe: its name, pack, version and lab, and each pack's content id.
    List,
    /// Print a recipe's simulated lab (an inventory): `cairn recipes lab NAME > lab.toml`.
    Lab {
        /// The recipe: a name one pack has, or `namespace/pack:recipe`.
        recipe: String,
    },
    /// Write a pack folder as a `.cairnpack` archive (a deterministic tar), writing its `FILES`
    /// list first; sign that list with `minisign -S -m DIR/FILES -t "cairn-pack NAME VERSION"`
    /// and pack again to ship the signature too.
    Pack {
        /// The pack's folder, with its `cairn-pack.toml`.
        dir: PathBuf,
        /// The archive to write.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Verify a pack (archive or folder), check its recipes against this cairn and store it
    /// in the packs folder (`$CAIRN_HOME/packs`, else `$XDG_DATA_HOME/cairn/packs`), beside
    /// its other versions.
    Install {
        /// The `.cairnpack` archive or the pack's folder.
        source: PathBuf,
        /// Install a pack with no `FILES.minisig`.
        #[arg(long)]
        allow_unsigned: bool,
    },
    /// Re-hash every installed pack against its `FILES`, check its signature, and check the
    /// project's `cairn.lock` against what is installed.
    Verify,
    /// Resolve `cairn.toml`'s `[packs.require]` to installed versions and write `cairn.lock`.
    Lock,
    /// A recipe's usage, description and params (from its `///` comments), lab, pack and
    /// signer.
    Show {
        /// The recipe: a name one pack has, or `namespace/pack:recipe`.
        recipe: String,
        /// Print a JSON Schema of its params instead.
        #[arg(long, conflicts_with = "markdown")]
        json: bool,
        /// Print its params as a Markdown table instead (docs/recipes.md's tables).
        #[arg(long)]
        markdown: bool,
    },
    /// Say whether a pack's new version changes its params by a major, minor or patch step;
    /// exits 1 when its version number claims less.
    Diff {
        /// The old version: a `.cairnpack` archive or a pack folder.
        old: PathBuf,
        /// The new version.
        new: PathBuf,
    },
}

impl RecipesArgs {
    pub(crate) fn execute(self, context: &super::Context) -> miette::Result<ExitCode> {
        recipes(&context.state, self.command)
    }
}

fn recipes(state: &Path, command: RecipesCommand) -> miette::Result<ExitCode> {
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
    let project = crate::config::project_file(&cwd);
    let user = crate::config::user_file();
    Ok(Context::load(project, user, PacksHome::locate())?)
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
