//! No function of the crates' code over 100 lines, and no runtime file over 550: a long function
//! is several steps under one name, and a long file several concepts where one per file reads
//! best. A function whose length is the point (a registration table) says so
//! in the first line of its body, a comment starting `// Why long:`; comments are not in `syn`'s
//! tree, so that line is read from the source. Test code is not held: `tests.rs`, `*_tests.rs`,
//! `#[cfg(test)]` items and `tests/` and `benches/` folders.

use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::rust_imports::rust_files;

/// The longest a function may be without a reason.
const MOST_FUNCTION_LINES: usize = 100;
/// The longest a runtime file's code may be.
const MOST_RUNTIME_FILE_LINES: usize = 550;

pub(crate) fn workspace() -> PathBuf {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    tests.parent().unwrap_or(tests).to_path_buf()
}

/// Every non-test `.rs` file under each crate's `src` (`*/src/**`), the tests crate being test
/// code as a whole.
pub(crate) fn code_files() -> Vec<PathBuf> {
    let root = workspace();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join("Cargo.toml").is_file() && path.join("src").is_dir())
        .filter(|path| path.file_name().is_some_and(|n| n != "tests"))
        .collect();
    crates.sort();
    crates
        .iter()
        .flat_map(|krate| code_files_under(&krate.join("src")))
        .collect()
}

/// The `.rs` files under `src` that are not test files.
fn code_files_under(src: &Path) -> Vec<PathBuf> {
    rust_files(src)
        .into_iter()
        .filter(|file| !is_test_file(file.strip_prefix(src).unwrap_or(file)))
        .collect()
}

/// A file that is test code by its name or its folder, `file` taken from its crate's `src`.
fn is_test_file(file: &Path) -> bool {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || file
            .parent()
            .into_iter()
            .flat_map(Path::components)
            .any(|c| c.as_os_str() == "tests" || c.as_os_str() == "benches")
}

/// An item under `#[cfg(test)]` (or `#[cfg(all(test, …))]`) or a `#[test]`.
pub(crate) fn is_test_item(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if attr.path().is_ident("test") {
            return true;
        }
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attr.meta.require_list() else {
            return false;
        };
        let tokens = list.tokens.to_string();
        tokens == "test" || tokens.starts_with("all (test ,") || tokens.starts_with("all(test,")
    })
}

/// One function found too long.
#[derive(Debug, PartialEq, Eq)]
struct Long {
    line: usize,
    name: String,
    lines: usize,
}

/// The functions and methods of `source` over [`MOST_FUNCTION_LINES`] whose body does not start
/// with a `// Why long:` line.
fn long_functions(source: &str, file: &Path) -> Vec<Long> {
    let parsed = syn::parse_file(source)
        .unwrap_or_else(|e| panic!("{}: not Rust the scanner can read: {e}", file.display()));
    let mut visitor = Functions {
        lines: source.lines().collect(),
        found: Vec::new(),
    };
    visitor.visit_file(&parsed);
    visitor.found
}

struct Functions<'a> {
    lines: Vec<&'a str>,
    found: Vec<Long>,
}

impl Functions<'_> {
    fn check(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let first = sig.fn_token.span.start().line;
        let braces = block.brace_token.span;
        let last = braces.close().end().line;
        let lines = last + 1 - first;
        // Lines are counted from 1, so the line after the opening brace is at its number.
        let body_first = self
            .lines
            .get(braces.open().start().line)
            .map_or("", |line| line.trim());
        if lines > MOST_FUNCTION_LINES && !body_first.starts_with("// Why long:") {
            self.found.push(Long {
                line: first,
                name: sig.ident.to_string(),
                lines,
            });
        }
    }
}

impl<'ast> Visit<'ast> for Functions<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Trait(t) => &t.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !is_test_item(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.check(&f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_item(&f.attrs) {
            self.check(&f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default
            && !is_test_item(&f.attrs)
        {
            self.check(&f.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The lines of `source` less those of its `#[cfg(test)]` items: the file's code.
fn code_lines(source: &str, file: &Path) -> usize {
    let parsed = syn::parse_file(source)
        .unwrap_or_else(|e| panic!("{}: not Rust the scanner can read: {e}", file.display()));
    let test_lines: usize = parsed
        .items
        .iter()
        .filter(|item| match item {
            syn::Item::Mod(m) => is_test_item(&m.attrs),
            syn::Item::Fn(f) => is_test_item(&f.attrs),
            _ => false,
        })
        .map(|item| {
            let span = item.span();
            span.end().line + 1 - span.start().line
        })
        .sum();
    source.lines().count().saturating_sub(test_lines)
}

pub(crate) fn shown(file: &Path) -> String {
    let root = workspace();
    file.strip_prefix(&root)
        .unwrap_or(file)
        .display()
        .to_string()
}

#[test]
fn no_function_is_over_100_lines_without_saying_why() {
    let mut long = Vec::new();
    for file in code_files() {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        for found in long_functions(&source, &file) {
            long.push(format!(
                "{}:{} fn {} ({} lines)",
                shown(&file),
                found.line,
                found.name,
                found.lines
            ));
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MOST_FUNCTION_LINES} lines: split them into named steps, or start \
         the body with `// Why long: ...`:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_runtime_file_is_over_550_lines() {
    let src = workspace().join("runtime").join("src");
    let mut long = Vec::new();
    for file in code_files_under(&src) {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        let lines = code_lines(&source, &file);
        if lines > MOST_RUNTIME_FILE_LINES {
            long.push(format!("{} ({lines} lines)", shown(&file)));
        }
    }
    assert!(
        long.is_empty(),
        "runtime files over {MOST_RUNTIME_FILE_LINES} lines of code: cut them by concern:\n{}",
        long.join("\n")
    );
}

/// A function of `n` body lines, its body starting with `first`.
fn function(name: &str, first: &str, n: usize) -> String {
    let body: String = (0..n).map(|i| format!("    let _x{i} = {i};\n")).collect();
    format!("fn {name}() {{\n    {first}\n{body}}}\n")
}

#[test]
fn the_rules_see_a_long_function_a_reason_a_method_and_test_code() {
    let file = Path::new("synthetic.rs");
    // 2 + 98 body lines + brace lines: 101 lines, one over.
    let over = function("over", "let _a = 0;", 98);
    let at = function("at", "let _a = 0;", 97);
    let why = function("table", "// Why long: one row per builtin.", 98);
    let method = format!("struct S;\nimpl S {{\n{}}}\n", function("method", "", 98));
    let tested = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", function("t", "", 200));
    let source = format!("{over}{at}{why}{method}{tested}");
    let found = long_functions(&source, file);
    let names: Vec<(&str, usize)> = found.iter().map(|l| (l.name.as_str(), l.lines)).collect();
    assert_eq!(names, [("over", 101), ("method", 101)]);
    assert_eq!(found[0].line, 1);
    assert_eq!(
        code_lines(&source, file),
        source.lines().count() - 206,
        "a test module's lines are not the file's code"
    );
    assert!(is_test_file(Path::new("sim/tests.rs")));
    assert!(is_test_file(Path::new("sim/host_tests.rs")));
    assert!(is_test_file(Path::new("tests/helpers.rs")));
    assert!(!is_test_file(Path::new("sim/sim_host.rs")));
}
