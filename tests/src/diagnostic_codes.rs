//! Every diagnostic code reads `cairn::<area>::<name>`, its area one of [`AREAS`], and a name
//! under two areas means one thing: a user who meets `fenced` twice should not have to learn
//! that `cairn::fenced` and `cairn::store::fenced` are different refusals. The codes are read
//! from the crates' sources (`#[diagnostic(code(...))]`, `code = "..."`); the docs' areas and
//! the codes the docs quote are held to them too (docs/design.md, "Diagnostic codes").

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::Regex;

use crate::long_functions::{code_files, shown, workspace};

/// The areas a code may name, each once in docs/design.md's "Diagnostic codes".
const AREAS: &[&str] = &[
    "action", "cli", "config", "fence", "lsp", "packs", "report", "runtime", "ssh", "stdlib",
    "store", "vault",
];

/// Names used under two areas on purpose, with why they mean one thing. Empty: every name is
/// under one area.
const SHARED_NAMES: &[(&str, &str)] = &[];

/// Where each code is defined: code → `file:line` of each definition.
fn codes_in_sources() -> BTreeMap<String, Vec<String>> {
    let defined = definition_pattern();
    let mut codes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in code_files() {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        for (code, line) in codes_defined(&defined, &source) {
            codes
                .entry(code)
                .or_default()
                .push(format!("{}:{line}", shown(&file)));
        }
    }
    codes
}

/// `code(cairn::...)` in a `#[diagnostic]` or `code = "cairn::..."` in a `miette!`/`diagnostic!`.
fn definition_pattern() -> Regex {
    Regex::new(r#"\bcode(?:\(\s*|\s*=\s*")(cairn(?:::[A-Za-z0-9_]+)*)"#)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The codes `source` defines, with the 1-based line of each.
fn codes_defined(defined: &Regex, source: &str) -> Vec<(String, usize)> {
    defined
        .captures_iter(source)
        .filter_map(|found| found.get(1))
        .map(|code| {
            let line = source[..code.start()].lines().count().max(1);
            (code.as_str().to_string(), line)
        })
        .collect()
}

/// What is wrong with a set of codes: a code not `cairn::<area>::<name>` with a known area, and a
/// name under two areas that [`SHARED_NAMES`] does not explain.
fn problems<'a>(codes: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut areas_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for code in codes {
        match code.split("::").collect::<Vec<_>>().as_slice() {
            ["cairn", area, name] if AREAS.contains(area) => {
                areas_of.entry(name).or_default().insert(area);
            }
            ["cairn", area, _] => problems.push(format!(
                "`{code}`: the area `{area}` is none of {AREAS:?} (add it, with docs/design.md)"
            )),
            _ => problems.push(format!("`{code}` is not `cairn::<area>::<name>`")),
        }
    }
    for (name, areas) in areas_of {
        if areas.len() > 1 && !SHARED_NAMES.iter().any(|(shared, _)| *shared == name) {
            let codes: Vec<String> = areas
                .iter()
                .map(|a| format!("cairn::{a}::{name}"))
                .collect();
            problems.push(format!(
                "`{name}` is under {} areas: {}; rename one, or merge them if they mean one thing",
                areas.len(),
                codes.join(", ")
            ));
        }
    }
    problems
}

#[test]
fn every_code_has_an_area_and_no_name_means_two_things() {
    let codes = codes_in_sources();
    let listed: Vec<String> = codes
        .iter()
        .map(|(code, places)| format!("{code}  {}", places.join(", ")))
        .collect();
    println!("{} diagnostic codes:\n{}", codes.len(), listed.join("\n"));
    assert!(
        codes.len() > 100,
        "the scan found {} codes: it no longer reads the sources",
        codes.len()
    );
    let problems = problems(codes.keys().map(String::as_str));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_refuses_a_code_without_an_area_and_a_name_with_two_meanings() {
    let found = problems([
        "cairn::fenced",
        "cairn::store::fenced",
        "cairn::fence::broken",
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`cairn::fenced` is not"), "{found:?}");
    let found = problems(["cairn::runtime::diverged", "cairn::action::diverged"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("`diverged` is under 2 areas"),
        "{found:?}"
    );
    let found = problems(["cairn::nowhere::lost"]);
    assert!(found[0].contains("the area `nowhere`"), "{found:?}");
    assert!(problems(["cairn::store::fenced", "cairn::fence::refused"]).is_empty());
}

/// docs/design.md's "Diagnostic codes" names every area, and every code a doc quotes exists: a
/// renamed code leaves no doc pointing at the old one.
#[test]
fn the_docs_name_the_areas_and_quote_only_codes_that_exist() {
    let root = workspace();
    let design = std::fs::read_to_string(root.join("docs/design.md")).unwrap_or_default();
    let section = design
        .split("\n## ")
        .find(|s| s.starts_with("Diagnostic codes"))
        .unwrap_or_else(|| panic!("docs/design.md has no \"Diagnostic codes\" section"));
    let missing: Vec<&&str> = AREAS
        .iter()
        .filter(|area| !section.contains(&format!("`cairn::{area}::`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/design.md does not list the areas {missing:?}"
    );
    let codes = codes_in_sources();
    let quoted = Regex::new(r"cairn::[a-z_]+::[a-z_]+").unwrap_or_else(|e| panic!("{e}"));
    let mut stale = Vec::new();
    for doc in docs(&root) {
        let text = std::fs::read_to_string(&doc).unwrap_or_default();
        for code in quoted.find_iter(&text).map(|m| m.as_str()) {
            if !codes.contains_key(code) {
                stale.push(format!("{}: `{code}`", shown(&doc)));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs quote codes no source defines:\n{}",
        stale.join("\n")
    );
}

/// The user's docs and the README.
fn docs(root: &Path) -> Vec<std::path::PathBuf> {
    let mut docs: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("docs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.push(root.join("README.md"));
    docs.sort();
    docs
}
