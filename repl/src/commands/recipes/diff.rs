//! `cairn recipes diff OLD NEW`: the SemVer step the params' changes need
//! (`repl/src/param_diff.rs`), against the step the two version numbers take.

use std::path::Path;
use std::process::ExitCode;

use crate::param_diff::{Bump, param_changes};
use cairn_packs::Pack;

pub(super) fn diff(old: &Path, new: &Path) -> miette::Result<ExitCode> {
    let (before, after) = (Pack::read(old)?, Pack::read(new)?);
    if before.name() != after.name() {
        return Err(miette::miette!(
            "{} is {} and {} is {}: two versions of one pack are compared",
            old.display(),
            before.name(),
            new.display(),
            after.name()
        ));
    }
    let scratch = tempfile::tempdir().map_err(|e| miette::miette!("a scratch folder: {e}"))?;
    let state = scratch.path();
    let changes = param_changes(
        &super::show::docs_of(state, &before, &state.join("old"))?,
        &super::show::docs_of(state, &after, &state.join("new"))?,
    );
    for change in &changes {
        say!("{:<5}  {}", change.bump, change.what);
    }
    let needed = changes.iter().map(|c| c.bump).max().unwrap_or(Bump::Patch);
    let (from, to) = (&before.manifest.version, &after.manifest.version);
    let taken = if to.major != from.major || (from.major == 0 && to.minor != from.minor) {
        Bump::Major
    } else if to.minor != from.minor {
        Bump::Minor
    } else {
        Bump::Patch
    };
    say!(
        "{} {from} -> {to}: the params need a {needed} version, the numbers take a {taken} step",
        before.name()
    );
    if to <= from {
        return Err(miette::miette!("{to} is not newer than {from}"));
    }
    if taken < needed {
        say!("the new version understates the change: make it a {needed} version");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
