//! Finding the module files a run's runbook imports, for the shared store to keep with the run
//! (docs/fleet.md), so that a controller without the runbook's checkout, its pack or its
//! `--lib` folders resumes it with the same modules. A working copy writes each under its
//! `source/`, roots the resumed runbook's imports there and searches `source/.search/N` first,
//! so every import resolves to the bytes the run started with.

use std::path::Path;

use rhai::{AST, Engine};

use crate::Runbook;
use crate::run::shared_store::{RunModules, SEARCH_MODULES};

/// The modules `runbook` (compiled as `ast` by `engine`) imports, named for the store. An
/// import by absolute path is left out: it names the same file on every controller.
pub(super) fn run_modules(engine: &Engine, ast: &AST, runbook: &Runbook) -> RunModules {
    let imports = runbook.imports();
    let file_name = || {
        runbook.path.file_name().map_or_else(
            || "runbook.rhai".into(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let runbook_name = under(&imports.root, &runbook.path).unwrap_or_else(file_name);
    let modules = crate::check::imported_files(engine, ast, runbook)
        .into_iter()
        .filter_map(|file| {
            let name = under(&imports.root, &file).or_else(|| {
                imports.search.iter().enumerate().find_map(|(n, dir)| {
                    under(dir, &file).map(|rest| format!("{SEARCH_MODULES}/{n}/{rest}"))
                })
            })?;
            Some((name, file))
        })
        .collect();
    RunModules {
        runbook: runbook_name,
        modules,
    }
}

/// `file`'s path under `dir`, `/`-separated, if it is there (without `..`).
fn under(dir: &Path, file: &Path) -> Option<String> {
    let rest = file.strip_prefix(dir).ok()?;
    let parts: Option<Vec<&str>> = rest
        .components()
        .map(|part| match part {
            std::path::Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    parts.filter(|p| !p.is_empty()).map(|p| p.join("/"))
}
