//! No import circle between the files of one folder of the stdlib or the runtime: a file that
//! names a sibling (`super::reads`, `crate::esxcli::reads`, or an item the folder's `mod.rs`
//! takes from it, as `rust_imports.rs` reads them) in its code depends on it, and those
//! dependencies must form no cycle, as the crates' top-level modules form none
//! (`import_circles.rs`). A folder's files then read as layers too: `reads.rs` under
//! `builtins.rs` and `staged.rs`, not two files asking each other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::import_circles::{Graph, circles, shown};
use crate::rust_imports::{crate_names, folder_uses, rust_files, top_module};

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

/// The child of `folder` a file is in: its own name for `folder/x.rs`, the subfolder's for
/// `folder/sub/y.rs` (as a crate's top-level module under `src`).
fn child(folder: &Path, file: &Path) -> String {
    top_module(folder, file)
}

/// The graph between the files (and subfolders) of `folder`, the module `module` of its crate.
fn folder_graph(folder: &Path, module: &str) -> Graph {
    let mod_rs = folder.join("mod.rs");
    let handed = std::fs::read_to_string(&mod_rs)
        .map(|text| folder_uses(&text, &mod_rs))
        .unwrap_or_default();
    let files = rust_files(folder);
    let mut graph = Graph::new();
    for file in &files {
        let name = child(folder, file);
        if name != "mod" && name != "tests" {
            graph.entry(name).or_default();
        }
    }
    let children: BTreeSet<String> = graph.keys().cloned().collect();
    for file in files {
        let from = child(folder, &file);
        // A file directly in the folder: its `super::` is the folder; deeper, it is not.
        let direct = file.parent() == Some(folder);
        if !children.contains(&from) || file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let named = crate_names(&text, &file);
        let supers = named.supers.into_iter().filter(|_| direct);
        let pairs = named
            .crate_pairs
            .into_iter()
            .filter(|(m, _)| m == module)
            .map(|(_, name)| name);
        for name in supers.chain(pairs) {
            let to = handed.get(&name).cloned().unwrap_or(name);
            if to != from && children.contains(&to) {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    graph
}

/// Every folder directly under a crate's `src`, with its module name.
fn folders(src: &Path) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(src)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .map(|path| (child(src, &path), path))
        .collect();
    found.sort();
    found
}

#[test]
fn no_import_circle_between_the_files_of_a_folder() {
    let mut found = BTreeMap::new();
    for krate in ["stdlib", "runtime"] {
        for (module, folder) in folders(&crate_src(krate)) {
            let parts = circles(&folder_graph(&folder, &module));
            if !parts.is_empty() {
                found.insert(format!("{krate}/src/{module}"), shown(&parts));
            }
        }
    }
    let all: Vec<String> = found
        .iter()
        .map(|(folder, parts)| format!("{folder}: {parts}"))
        .collect();
    assert!(
        all.is_empty(),
        "import circles between files:\n{}\n(move what both files read into one file of its own, \
         as esxcli/reads.rs)",
        all.join("\n")
    );
}

#[test]
fn a_circle_between_two_files_and_one_through_mod_rs_are_found() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let folder = dir.path().join("esxcli");
    std::fs::create_dir(&folder).expect("folder");
    let write = |name: &str, text: &str| {
        std::fs::write(folder.join(name), text).expect("write");
    };
    write(
        "mod.rs",
        "mod builtins;\nmod staged;\nmod types;\npub(crate) use types::Vib;\n",
    );
    write("builtins.rs", "fn f() { super::staged::probe(); }\n");
    write("staged.rs", "use super::builtins::list;\n");
    write("types.rs", "pub struct Vib;\n");
    let expected: BTreeSet<Vec<String>> = [vec!["builtins".into(), "staged".into()]].into();
    assert_eq!(circles(&folder_graph(&folder, "esxcli")), expected);
    // Through the item `mod.rs` takes from `types`, and through `crate::esxcli::`.
    write("staged.rs", "fn g() -> super::Vib { todo!() }\n");
    write("types.rs", "fn h() { crate::esxcli::builtins::f(); }\n");
    let expected: BTreeSet<Vec<String>> =
        [vec!["builtins".into(), "staged".into(), "types".into()]].into();
    assert_eq!(circles(&folder_graph(&folder, "esxcli")), expected);
    // A test's import is no dependency.
    write(
        "types.rs",
        "#[cfg(test)]\nmod tests {\n    use crate::esxcli::builtins;\n}\n",
    );
    assert!(circles(&folder_graph(&folder, "esxcli")).is_empty());
}
