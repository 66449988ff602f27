//! The stdlib's layers, enforced (see `stdlib/src/README.md`), from the one import scanner
//! (`rust_imports.rs`): a namespace folder (layer 2) names only
//! layer 1 (`action`, `pair`, `grammar`, `machine`), the runtime and itself; layer 1 names only
//! layer 1. Tests may also use the assembly (`models`, `test_support`, `libraries`). The one
//! documented exception is [`COMPOSER`], which may name other namespaces (and none may name it):
//! any other namespace edge fails. What two namespaces share moves into layer 1 (a printer's
//! state into `machine/`, a parser into `grammar/`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::rust_imports::{crate_names, rust_files, top_module};

/// Layer 1.
const SHARED: &[&str] = &["action", "grammar", "machine", "pair"];
/// Layer 3: assembly, which a test module may use.
const ASSEMBLY: &[&str] = &[
    "libraries",
    "models",
    "parsers",
    "test_support",
    "sim_models",
];
/// Modules of layer 3 at the crate root, not namespaces.
const ROOT_FILES: &[&str] = &[
    "builtins_doc.rs",
    "lib.rs",
    "library.rs",
    "parsers.rs",
    "tools.rs",
];

/// The one namespace allowed to name others: `fabric` is controller-level, a fabric acceptance
/// composed of the other namespaces' tools (each pair measured by perftest's runner and
/// options; the port rate and state from `ibstat`, `ibstatus`, `ibv_devinfo`; the manifest's part
/// number from `lspci -vv`'s VPD and its OFED/DOCA version from `ofed_info -s`). Moving those
/// into layer 1 would move whole namespaces there; no namespace names `fabric` back.
const COMPOSER: &str = "fabric";

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../stdlib/src")
}

/// A name that is not a module: the crate's re-exported `ParseError`.
fn is_item(name: &str) -> bool {
    name.starts_with(char::is_uppercase)
}

/// Every violation: `from -> to (file)`, and the namespace edges seen.
fn check() -> (Vec<String>, BTreeSet<(String, String)>) {
    let files = rust_files(&src());
    let mut violations = Vec::new();
    let mut edges = BTreeSet::new();
    for file in files {
        let relative = file
            .strip_prefix(src())
            .unwrap_or(&file)
            .display()
            .to_string();
        let module = top_module(&src(), &file);
        let is_root = !relative.contains('/') && ROOT_FILES.contains(&relative.as_str());
        if is_root || ASSEMBLY.contains(&module.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let named = crate_names(&text, &file);
        let (code, tests) = if file.file_name().is_some_and(|name| name == "tests.rs") {
            // A `tests.rs` file is a namespace's `#[cfg(test)] mod tests;`: all of it is tests.
            (BTreeSet::new(), &named.code | &named.tests)
        } else {
            (named.code, named.tests)
        };
        let shared = SHARED.contains(&module.as_str());
        for (names, in_tests) in [(code, false), (tests, true)] {
            for name in names {
                if name == module || is_item(&name) || SHARED.contains(&name.as_str()) {
                    continue;
                }
                if in_tests && ASSEMBLY.contains(&name.as_str()) {
                    continue;
                }
                if in_tests && shared {
                    // A layer-1 test drives whole simulated hosts through the tools.
                    continue;
                }
                let composer = module == COMPOSER;
                if shared {
                    violations.push(format!("layer 1 `{module}` names `{name}` ({relative})"));
                } else if in_tests {
                    // Only the composer's tests may name other namespaces, as its code does.
                    if !composer {
                        violations.push(format!("`{module}`'s tests name `{name}` ({relative})"));
                    }
                } else {
                    edges.insert((module.clone(), name.clone()));
                    if !composer {
                        violations.push(format!(
                            "namespace `{module}` names namespace `{name}` ({relative}): move what they share into layer 1"
                        ));
                    }
                }
            }
        }
    }
    (violations, edges)
}

#[test]
fn no_namespace_imports_another() {
    let (violations, _) = check();
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

/// The exception stays only while it is needed, and stays one way: `fabric` still names other
/// namespaces in its code, and no namespace names it (that would be a violation above).
#[test]
fn the_composer_still_composes() {
    let (_, edges) = check();
    let composed: Vec<&str> = edges
        .iter()
        .filter(|(from, _)| from == COMPOSER)
        .map(|(_, to)| to.as_str())
        .collect();
    assert!(
        !composed.is_empty(),
        "`{COMPOSER}` names no other namespace: drop the COMPOSER exception"
    );
    assert!(
        edges.iter().all(|(_, to)| to != COMPOSER),
        "a namespace names `{COMPOSER}`: {edges:?}"
    );
}

/// Folders at the top of `stdlib/src` that are no namespace: layer 1, the assembly's, and
/// `builtins_doc/` (the text beside `builtins_doc.rs`).
fn not_namespaces() -> BTreeSet<&'static str> {
    SHARED
        .iter()
        .chain(ASSEMBLY)
        .copied()
        .chain(["builtins_doc"])
        .collect()
}

/// The README's list of namespaces is checked against the folders, both ways: a namespace added
/// without its README entry fails, and so does an entry whose folder is gone.
#[test]
fn the_readme_lists_every_namespace_folder_and_no_other() {
    let readme = std::fs::read_to_string(src().join("README.md"))
        .unwrap_or_else(|e| panic!("stdlib/src/README.md: {e}"));
    // The layer-2 row and the rows without a layer after it, which go on with its list.
    let mut rows = readme
        .lines()
        .skip_while(|line| !line.starts_with("| 2, one folder per builtin namespace |"))
        .peekable();
    assert!(
        rows.peek().is_some(),
        "stdlib/src/README.md has no layer-2 row"
    );
    let first = rows.next().unwrap_or_default();
    let cells: Vec<&str> = std::iter::once(first)
        .chain(rows.take_while(|line| line.starts_with("| | ")))
        .map(|row| row.split(" | ").nth(1).unwrap_or_default())
        .collect();
    let listed: BTreeSet<String> = cells
        .iter()
        .flat_map(|cell| cell.split('`').skip(1).step_by(2))
        .filter_map(|token| token.strip_suffix('/'))
        .map(str::to_owned)
        .collect();
    let skip = not_namespaces();
    let folders: BTreeSet<String> = std::fs::read_dir(src())
        .unwrap_or_else(|e| panic!("stdlib/src: {e}"))
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !skip.contains(name.as_str()))
        .collect();
    let missing: Vec<&String> = folders.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "stdlib/src/README.md's layer-2 row lacks {missing:?}"
    );
    // A listed name is a namespace folder or a program's folder inside one (`ofed/openibd/`).
    for name in &listed {
        let found =
            folders.contains(name) || folders.iter().any(|ns| src().join(ns).join(name).is_dir());
        assert!(
            found,
            "stdlib/src/README.md lists `{name}/`, which is no folder"
        );
    }
}
