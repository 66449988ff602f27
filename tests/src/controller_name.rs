//! The controller's name (`stage ... on controller`, its journal `controller.jsonl`) is one
//! constant, `cairn_runtime::CONTROLLER`: no crate's code spells it as a literal of its own, so
//! the executor, the checker, the run folder, the output and the report cannot drift apart.

use std::path::Path;

use syn::spanned::Spanned;

use crate::long_functions::{code_files, is_test_item, shown};

/// The one place the name is written.
const HOME: &str = "runtime/src/host_info.rs";

/// The 1-based lines of `source`'s `#[cfg(test)]` and `#[test]` items.
fn test_lines(source: &str, file: &Path) -> Vec<std::ops::RangeInclusive<usize>> {
    let parsed = syn::parse_file(source)
        .unwrap_or_else(|e| panic!("{}: not Rust the scanner can read: {e}", file.display()));
    parsed
        .items
        .iter()
        .filter(|item| match item {
            syn::Item::Mod(m) => is_test_item(&m.attrs),
            syn::Item::Fn(f) => is_test_item(&f.attrs),
            _ => false,
        })
        .map(|item| item.span().start().line..=item.span().end().line)
        .collect()
}

/// The code lines of `source` (not comments, not test items) with `"controller"` in them.
fn literals(source: &str, file: &Path) -> Vec<usize> {
    let tests = test_lines(source, file);
    source
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(number, line)| {
            line.contains("\"controller\"")
                && !line.trim_start().starts_with("//")
                && !tests.iter().any(|range| range.contains(number))
        })
        .map(|(number, _)| number)
        .collect()
}

#[test]
fn the_controllers_name_is_written_once() {
    let mut found = Vec::new();
    let mut homes = 0;
    for file in code_files() {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        for line in literals(&source, &file) {
            if shown(&file) == HOME {
                homes += 1;
            } else {
                found.push(format!("{}:{line}", shown(&file)));
            }
        }
    }
    assert_eq!(homes, 1, "{HOME} no longer defines `CONTROLLER`");
    assert!(
        found.is_empty(),
        "the controller's name as a literal; use `CONTROLLER`:\n{}",
        found.join("\n")
    );
}
