//! The run's shared state is the runtime's: the stdlib reaches it through `RunShared`'s methods
//! (`exec_on`, `clock_of`, `hold_pair`, `reaches`, `options`, ...), never its fields. This test
//! reads the fields from the runtime's source and fails when one is public again or when a
//! stdlib file names one (`shared.transports`, `host.shared.options.check`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn runtime_shared_rs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src/run/shared.rs")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text without `//` comments, so a doc comment may still name a field.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `RunShared`'s fields and whether each is `pub` (to every crate), from its declaration.
fn fields(source: &str) -> Vec<(String, bool)> {
    let Some(start) = source.find("pub struct RunShared {") else {
        return Vec::new();
    };
    let body = &source[start..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|line| !line.starts_with("//"))
        .filter_map(|line| {
            let (before, _) = line.split_once(':')?;
            let name = before.split_whitespace().last()?.to_owned();
            let public = before.trim_start().starts_with("pub ");
            Some((name, public))
        })
        .collect()
}

/// The fields of `names` that `code` reads: `shared` (or `shared()`), then `.field` not followed
/// by `(`, with any whitespace or line break between.
fn named_fields(code: &str, names: &BTreeSet<String>) -> BTreeSet<String> {
    let squeezed: String = code.split_whitespace().collect();
    let mut found = BTreeSet::new();
    for receiver in ["shared.", "shared()."] {
        let mut rest = squeezed.as_str();
        while let Some(at) = rest.find(receiver) {
            let preceded_by_ident = rest[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            rest = &rest[at + receiver.len()..];
            let field: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let called =
                rest[field.len()..].starts_with('(') || rest[field.len()..].starts_with("::<");
            if !preceded_by_ident && !called && names.contains(&field) {
                found.insert(field);
            }
        }
    }
    found
}

#[test]
fn the_scanner_finds_a_field_across_lines_and_not_a_method() {
    let names: BTreeSet<String> = ["transports", "options"].map(String::from).into();
    let code =
        "let t = host\n    .shared\n    .transports\n    .get(x);\nlet o = shared.options();";
    assert_eq!(
        named_fields(code, &names),
        BTreeSet::from(["transports".to_owned()])
    );
    assert!(named_fields("unshared.transports", &names).is_empty());
    let declared = "pub struct RunShared {\n    /// Doc.\n    pub(crate) cancel: Cancel,\n    pub hosts: Vec<HostInfo>,\n}\n";
    assert_eq!(
        fields(declared),
        vec![("cancel".to_owned(), false), ("hosts".to_owned(), true)]
    );
}

#[test]
fn the_stdlib_names_no_field_of_run_shared() {
    let source = std::fs::read_to_string(runtime_shared_rs()).unwrap_or_default();
    let declared = fields(&source);
    assert!(
        declared.len() >= 10,
        "RunShared's fields not found in {}: {declared:?}",
        runtime_shared_rs().display()
    );
    let public: Vec<&str> = declared
        .iter()
        .filter(|(_, public)| *public)
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(
        public.is_empty(),
        "RunShared's fields are the runtime's (`pub(crate)`); give the stdlib a method instead: {public:?}"
    );
    let names: BTreeSet<String> = declared.into_iter().map(|(name, _)| name).collect();
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for field in named_fields(&code_of(&text), &names) {
            found.push(format!("{}: `{field}`", file.display()));
        }
    }
    assert!(files.len() > 50, "stdlib sources not found");
    assert!(
        found.is_empty(),
        "the stdlib names RunShared fields:\n{}",
        found.join("\n")
    );
}
