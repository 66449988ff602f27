//! `cairn recipes install FILE|DIR`: verify the pack offline, check every recipe against this
//! binary's builtins (what no other pack manager does: the engine that will run the recipes
//! checks them first), then store it beside its other versions.

use std::path::Path;

use cairn_packs::{Context, Outcome, Pack, check_listing, check_signature};
use cairn_runtime::{Runbook, build_engine, check_source};

/// This cairn's version, against which a pack's `cairn` range is checked.
const CAIRN_VERSION: &str = env!("CARGO_PKG_VERSION");

pub(super) fn install(
    state: &Path,
    context: &Context,
    source: &Path,
    allow_unsigned: bool,
) -> miette::Result<()> {
    let Some(home) = &context.home else {
        return Err(miette::miette!(
            help = "set CAIRN_HOME to the folder cairn keeps its packs in",
            "no packs folder: none of CAIRN_HOME, XDG_DATA_HOME and HOME is set"
        ));
    };
    let pack = Pack::read(source)?;
    let origin = pack.origin.to_string();
    // A pack named like a built-in one would make its recipes' names ambiguous even with the
    // pack named (`cairn/connectx:vma-latency`): the built-in name stays the binary's.
    if Pack::builtin()?.iter().any(|b| b.name() == pack.name()) {
        return Err(miette::miette!(
            help = "give the pack a name of its own in its cairn-pack.toml",
            "{origin}: {} is the name of a pack built into cairn",
            pack.name()
        ));
    }
    check_listing(&pack.files, &origin)?;
    let this = cairn_packs::semver::Version::parse(CAIRN_VERSION)
        .map_err(|e| miette::miette!("this cairn's version {CAIRN_VERSION}: {e}"))?;
    pack.check_cairn(&this)?;
    let signer = check_signature(
        &pack.files,
        pack.name(),
        &pack.manifest.version,
        &context.keys,
        allow_unsigned,
        &origin,
    )?;
    check_recipes(state, &pack)?;
    let source = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
    let outcome = home.install(&pack, &source.display().to_string(), signer.as_ref())?;
    let signed = signer.map_or_else(
        || "unsigned".to_owned(),
        |s| format!("signed by key {} (trusted in {})", s.key_id, s.trusted_in),
    );
    let m = &pack.manifest;
    match outcome {
        Outcome::Installed(dir) => say!(
            "installed {} {} ({}, {signed}) into {}",
            m.name,
            m.version,
            pack.content_id(),
            dir.display()
        ),
        Outcome::AlreadyThere(dir) => say!(
            "{} {} is installed already with these files ({}) in {}",
            m.name,
            m.version,
            pack.content_id(),
            dir.display()
        ),
    }
    Ok(())
}

/// Runs `cairn check` on every recipe of `pack`, written into a scratch folder so its imports
/// resolve as they will once installed; refuses the pack if any recipe has a problem.
fn check_recipes(state: &Path, pack: &Pack) -> miette::Result<()> {
    let scratch = tempfile::tempdir()
        .map_err(|e| miette::miette!("cannot make a scratch folder to check the pack in: {e}"))?;
    let folder = pack
        .materialize(scratch.path())
        .map_err(|e| miette::miette!("cannot write the pack to check it: {e}"))?;
    let launcher = crate::assembly::launcher(state);
    let mut problems = 0;
    for (recipe, entry) in &pack.manifest.recipes {
        let runbook = Runbook::load(&folder.join(&entry.file))?.with_lib_path(&launcher.lib_path);
        let engine = build_engine(&runbook.imports(), &launcher.libraries, u64::MAX);
        let checked = check_source(&engine, &runbook, None);
        for problem in checked.errors {
            problems += 1;
            eprintln!("recipe {recipe}:");
            eprintln!("{:?}", miette::Report::new(problem));
        }
    }
    if problems > 0 {
        return Err(miette::miette!(
            help = "the pack was written for another cairn, or its recipes are wrong; it was not installed",
            "{} {}: {problems} problem(s) in its recipes, checked against this cairn ({CAIRN_VERSION})",
            pack.name(),
            pack.manifest.version
        ));
    }
    Ok(())
}
