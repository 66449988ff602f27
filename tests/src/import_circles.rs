//! No import circle between the top-level modules of the stdlib, runtime and repl crates: a
//! module that names another (`crate::x`, `crate::{x, y}`, or an item the crate root re-exports
//! from `x`, as `rust_imports.rs` reads them) in its non-test code depends on it, and the dependencies must form no cycle: the
//! modules form layers (`runtime/src/README.md`, `stdlib/src/README.md`, docs/design.md). The
//! runtime's imports are also checked against its README's layer table, row by row.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::rust_imports::{crate_names, re_exports, rust_files, top_module};

pub(crate) type Graph = BTreeMap<String, BTreeSet<String>>;

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

/// The graph between a crate's top-level modules (files and folders under `src`).
fn graph(src: &Path) -> Graph {
    let root = ["lib.rs", "main.rs"]
        .iter()
        .find_map(|name| std::fs::read_to_string(src.join(name)).ok())
        .unwrap_or_default();
    let items = re_exports(&root, &src.join("lib.rs"));
    let files = rust_files(src);
    let mut graph = Graph::new();
    for file in &files {
        let top = top_module(src, file);
        graph.entry(top.clone()).or_default();
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for file in files {
        let top = top_module(src, &file);
        let is_root = matches!(top.as_str(), "lib" | "main" | "bin");
        // A `tests.rs` file is a `#[cfg(test)] mod tests;`: all of it is tests.
        if is_root || file.file_name().is_some_and(|name| name == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for name in crate_names(&text, &file).code {
            let module = items.get(&name).cloned().unwrap_or(name);
            if module != top && modules.contains(&module) {
                graph.entry(top.clone()).or_default().insert(module);
            }
        }
    }
    graph
}

/// The graph's circles: its strongly connected parts of more than one module, each sorted.
pub(crate) fn circles(graph: &Graph) -> BTreeSet<Vec<String>> {
    // Two modules are on one circle when each reaches the other.
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(at) = todo.pop() {
            for next in graph.get(&at).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut found = BTreeSet::new();
    for (module, from) in &reached {
        let part: Vec<String> = reached
            .iter()
            .filter(|(other, to)| from.contains(other.as_str()) && to.contains(module.as_str()))
            .map(|(other, _)| (*other).clone())
            .collect();
        if part.len() > 1 {
            found.insert(part);
        }
    }
    found
}

pub(crate) fn shown(found: &BTreeSet<Vec<String>>) -> String {
    found
        .iter()
        .map(|part| part.join(" -> "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_import_circle_in_stdlib_runtime_or_repl() {
    for name in ["stdlib", "runtime", "repl"] {
        let graph = graph(&crate_src(name));
        assert!(graph.len() > 3, "{name}: no modules found");
        let found = circles(&graph);
        assert!(
            found.is_empty(),
            "{name}: import circles:\n{}",
            shown(&found)
        );
    }
}

/// The layer of each module in the `## Layers` table of a crate's `README.md`: the row's
/// number, from the backticked names in its second column; a row with an empty first cell goes
/// on with the layer above it, so no cell has to hold a whole layer's names.
fn layers_of(readme: &str) -> BTreeMap<String, usize> {
    let mut layers = BTreeMap::new();
    let table = readme
        .split("## Layers")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_default()
        .lines()
        .filter(|line| {
            line.starts_with("| ") && !line.starts_with("| layer") && !line.starts_with("| ---")
        });
    let mut row = 0;
    for (index, line) in table.enumerate() {
        if index > 0 && !line.starts_with("| | ") {
            row += 1;
        }
        let modules = line.split(" | ").nth(1).unwrap_or_default();
        for name in modules.split('`').skip(1).step_by(2) {
            layers.insert(name.trim_end_matches('/').to_owned(), row);
        }
    }
    layers
}

/// The edges that go up the table (from a module to one in a later row), and the modules it lacks.
fn against_layers(graph: &Graph, layers: &BTreeMap<String, usize>) -> (Vec<String>, Vec<String>) {
    let missing = graph
        .keys()
        .filter(|m| !matches!(m.as_str(), "lib" | "main" | "bin") && !layers.contains_key(*m))
        .cloned()
        .collect();
    let mut upward = Vec::new();
    for (from, to) in graph {
        for target in to {
            if let (Some(a), Some(b)) = (layers.get(from), layers.get(target))
                && b > a
            {
                upward.push(format!(
                    "{from} (layer {}) imports {target} (layer {})",
                    a + 1,
                    b + 1
                ));
            }
        }
    }
    (upward, missing)
}

#[test]
fn the_runtime_imports_follow_its_readme_layers() {
    let src = crate_src("runtime");
    let readme = std::fs::read_to_string(src.join("README.md")).unwrap_or_default();
    let layers = layers_of(&readme);
    assert!(layers.len() > 20, "no layer table in runtime/src/README.md");
    let (upward, missing) = against_layers(&graph(&src), &layers);
    assert!(
        missing.is_empty(),
        "runtime/src/README.md's layer table lacks {missing:?}: add each to the layer it belongs to"
    );
    assert!(
        upward.is_empty(),
        "imports against runtime/src/README.md's layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn an_import_up_the_layer_table_is_found() {
    let readme = "# x\n\n## Layers\n\n| layer | modules | may import |\n| --- | --- | --- |\n| 1 | `a`, `b/` | |\n| | `e` | |\n| 2 | `c` | 1 |\n\n## Files\n\n| file | holds |\n| --- | --- |\n| `c.rs` | c |\n";
    let layers = layers_of(readme);
    assert_eq!(layers.get("b"), Some(&0));
    assert_eq!(
        layers.get("e"),
        Some(&0),
        "a row without a layer goes on with the one above"
    );
    assert_eq!(layers.get("c"), Some(&1));
    let mut graph = Graph::new();
    graph.entry("c".into()).or_default().insert("a".into());
    graph.entry("a".into()).or_default();
    assert_eq!(against_layers(&graph, &layers), (vec![], vec![]));
    graph.entry("a".into()).or_default().insert("c".into());
    graph.entry("d".into()).or_default();
    let (upward, missing) = against_layers(&graph, &layers);
    assert_eq!(upward, vec!["a (layer 1) imports c (layer 2)".to_owned()]);
    assert_eq!(missing, vec!["d".to_owned()]);
}

#[test]
fn a_circle_through_a_re_export_or_a_group_is_found() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).expect("write");
    };
    write(
        "lib.rs",
        "mod a;\nmod b;\nmod c;\npub use c::{Thing, other};\n",
    );
    write("a.rs", "use crate::{\n    b::{x, y},\n};\n");
    write(
        "b.rs",
        "// crate::a in a comment is no import\nfn f() { crate::Thing; }\n",
    );
    write(
        "c.rs",
        "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n",
    );
    let found = circles(&graph(dir.path()));
    let expected: BTreeSet<Vec<String>> = [vec!["a".into(), "b".into(), "c".into()]].into();
    assert_eq!(found, expected);
    // Without the edge through the re-export, nothing is circular.
    write("b.rs", "fn f() {}\n");
    assert!(circles(&graph(dir.path())).is_empty());
}
