//! Help for every builtin, core and vendor, from the catalog the checker reads
//! (`catalog.rs`: names, arities, parameter names, runbook types, registered help), so `:help`,
//! an editor's hover and docs/builtins.md say the same. Types are shown as a runbook writes
//! them (`map`, `string`), never as Rust types.

use crate::catalog::{Builtin, Catalog};

/// One overload of a builtin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltinSignature {
    /// `run(argv: array, options: map) -> map`.
    pub display: String,
    /// The help the builtin was registered with, if any.
    pub comments: String,
}

/// Overloads that exist only to refuse a call with a better message (`run("ip link")`), by
/// name and first parameter type: not shown as ways to call the builtin.
fn refusing(builtin: &Builtin) -> bool {
    builtin.name == "run" && builtin.params.first().is_some_and(|p| p.kind == "string")
}

/// Every overload of `name` (`run`, `net::set_mtu`) the catalog has, script-facing, sorted.
pub fn builtin_signatures(catalog: &Catalog, name: &str) -> Vec<BuiltinSignature> {
    let mut found: Vec<BuiltinSignature> = catalog
        .overloads(name)
        .filter(|b| !refusing(b))
        .map(|b| BuiltinSignature {
            display: b.display(),
            comments: b.doc.clone(),
        })
        .collect();
    found.sort_by(|a, b| a.display.cmp(&b.display));
    found.dedup();
    found
}

/// The help text of `name`: cairn's own overloads' first, else the standard library's (rhai's
/// `trim` is documented as trimming in place; cairn's returns the text too).
pub fn builtin_doc_text(catalog: &Catalog, name: &str) -> Option<String> {
    let overloads: Vec<&Builtin> = catalog.overloads(name).filter(|b| !refusing(b)).collect();
    let first = |standard: bool| {
        let mut docs: Vec<(String, &str)> = overloads
            .iter()
            .filter(|b| b.standard == standard && !b.doc.is_empty())
            .map(|b| (b.display(), b.doc.as_str()))
            .collect();
        docs.sort();
        docs.first().map(|(_, doc)| (*doc).to_owned())
    };
    first(false).or_else(|| first(true))
}

/// The whole help for `name`: each signature, then its text.
pub fn builtin_help(catalog: &Catalog, name: &str) -> Option<String> {
    let signatures = builtin_signatures(catalog, name);
    if signatures.is_empty() {
        return None;
    }
    let mut out: Vec<String> = signatures.iter().map(|s| s.display.clone()).collect();
    if let Some(text) = builtin_doc_text(catalog, name) {
        out.extend(wrap(&text, 92).into_iter().map(|l| format!("    {l}")));
    }
    Some(out.join("\n"))
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for paragraph in text.lines() {
        if paragraph.chars().count() <= width || paragraph.starts_with("    ") {
            out.push(paragraph.to_owned());
            continue;
        }
        let mut line = String::new();
        for word in paragraph.split(' ') {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_builtins_have_named_parameters_and_the_docs_text() {
        let engine = crate::build_engine(
            &crate::ImportPath::at(std::path::Path::new(".")),
            &[],
            u64::MAX,
        );
        let engine = Catalog::of(&engine);
        let run = builtin_help(&engine, "run").unwrap_or_default();
        assert!(run.contains("run(argv: array) -> map"), "{run}");
        assert!(
            run.contains("run(argv: array, options: map) -> map"),
            "{run}"
        );
        assert!(run.contains("Runs a command on the current host."), "{run}");
        assert!(!run.contains("core::"), "{run}");
        let retry = builtin_help(&engine, "retry").unwrap_or_default();
        assert!(
            retry.contains("retry(times: int, delay_secs: int"),
            "{retry}"
        );
        assert!(!run.contains("run(argv: string"), "{run}");
        let trimmed = builtin_help(&engine, "trimmed").unwrap_or_default();
        assert!(
            trimmed.contains("trimmed(text: string) -> string"),
            "{trimmed}"
        );
        assert_eq!(builtin_help(&engine, "nosuch"), None);
        let names = engine.names();
        assert!(names.iter().any(|n| n == "run"), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with('+') || n.contains('$')));
    }

    /// The core vocabulary's help is registered with its functions; docs/language.md's
    /// builtin table says the same, row by row.
    #[test]
    fn the_language_table_says_what_the_registered_help_says() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/language.md");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let engine = crate::build_engine(
            &crate::ImportPath::at(std::path::Path::new(".")),
            &[],
            u64::MAX,
        );
        let catalog = Catalog::of(&engine);
        let mut rows = 0;
        for line in text.lines() {
            let Some((head, rest)) = line.strip_prefix("| ").and_then(|r| r.split_once(" | "))
            else {
                continue;
            };
            for form in head.split('`').skip(1).step_by(2) {
                let called = form.split('(').next().unwrap_or(form);
                let called = called.rsplit('.').next().unwrap_or(called);
                if !catalog.overloads(called).any(|b| !b.standard) {
                    continue;
                }
                let row = rest.trim_end_matches('|').trim();
                assert_eq!(
                    builtin_doc_text(&catalog, called).as_deref(),
                    Some(row),
                    "`{called}`: its registered help and its row differ"
                );
                rows += 1;
            }
        }
        assert!(rows >= 19, "only {rows} rows of core builtins");
    }
}
