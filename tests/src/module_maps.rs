//! The module maps (each crate's `src/README.md`) are read at a glance: a table cell says in one
//! line what a module holds, and the details live in the module's own `//!` doc comment, where
//! they are read beside the code. A cell over [`LONGEST_CELL`] characters fails.

use std::path::PathBuf;

use crate::long_functions::{shown, workspace};

/// The longest a cell of a module map's table may be: about one line of the map.
const LONGEST_CELL: usize = 120;

/// Every crate's `src/README.md`.
fn module_maps() -> Vec<PathBuf> {
    let root = workspace();
    let mut maps: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("src/README.md"))
        .filter(|map| map.is_file())
        .collect();
    maps.sort();
    maps
}

/// The cells of `map`'s table rows over [`LONGEST_CELL`], as `line: start of the cell`.
fn long_cells(map: &str) -> Vec<String> {
    map.lines()
        .enumerate()
        .filter(|(_, line)| line.starts_with("| ") && !line.starts_with("| ---"))
        .flat_map(|(index, line)| {
            line.trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .filter(|cell| cell.chars().count() > LONGEST_CELL)
                .map(move |cell| {
                    let start: String = cell.chars().take(40).collect();
                    format!(
                        "{}: {start}... ({} characters)",
                        index + 1,
                        cell.chars().count()
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_module_map_cell_is_one_line() {
    let maps = module_maps();
    assert!(maps.len() >= 4, "module maps found: {maps:?}");
    let mut long = Vec::new();
    for map in maps {
        let text = std::fs::read_to_string(&map).unwrap_or_default();
        for cell in long_cells(&text) {
            long.push(format!("{}:{cell}", shown(&map)));
        }
    }
    assert!(
        long.is_empty(),
        "cells over {LONGEST_CELL} characters: say it in a line, the rest in the module's `//!`:\n{}",
        long.join("\n")
    );
}

#[test]
fn a_long_cell_is_found_in_any_column() {
    let long = "x".repeat(LONGEST_CELL + 1);
    let map = format!(
        "| file | holds |\n| --- | --- |\n| `a.rs` | short |\n| `b.rs` | {long} |\n| | `{long}` |\n"
    );
    let found = long_cells(&map);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("4: xxx"), "{found:?}");
    assert!(found[1].starts_with("5: `xxx"), "{found:?}");
}
