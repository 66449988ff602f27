//! The one Rust-source import scanner both layer rules read (`import_circles.rs` for the
//! runtime, stdlib and repl crates' module graphs, `stdlib_layers.rs` for the stdlib's three
//! layers): files parsed with `syn`, so a `use` tree, a path in an expression and a path inside
//! a macro call (`exported_module!(crate::net::...)`) are all seen, and a comment or a string
//! never is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::TokenTree;
use syn::visit::Visit;

/// Every `.rs` file under `dir`, sorted.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module of a file under `src` (`net` for `src/net/ip/parse.rs`, `tools` for
/// `src/tools.rs`).
pub(crate) fn top_module(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap_or(file);
    relative
        .components()
        .next()
        .map(|c| {
            c.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .unwrap_or_default()
}

/// The crate-root names a file uses (`crate::x`, the heads of `crate::{x, y::z}`), split into
/// those of its code and those of its `#[cfg(test)]` items.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Named {
    pub(crate) code: BTreeSet<String>,
    pub(crate) tests: BTreeSet<String>,
    /// The names after `super::` in the file's own scope (not inside an inline module), and
    /// the pairs after `crate::` (`crate::esxcli::reads` gives `(esxcli, reads)`), of its code:
    /// what a file names of its folder's other files.
    pub(crate) supers: BTreeSet<String>,
    pub(crate) crate_pairs: BTreeSet<(String, String)>,
}

/// The names `text`, a whole Rust file, uses; a file that does not parse is a test failure.
pub(crate) fn crate_names(text: &str, file: &Path) -> Named {
    let parsed = syn::parse_file(text)
        .unwrap_or_else(|e| panic!("{}: not Rust the scanner can read: {e}", file.display()));
    let mut visitor = Visitor::default();
    visitor.visit_file(&parsed);
    visitor.named
}

/// What a crate root re-exports, item → the module it comes from (`pub use x::{A, b::C}` gives
/// `A` and `C` from `x`; `pub use x::D as E` gives `E`).
pub(crate) fn re_exports(root: &str, file: &Path) -> BTreeMap<String, String> {
    uses_of(root, file, |vis| matches!(vis, syn::Visibility::Public(_)))
}

/// What a folder's `mod.rs` hands its files, item → the file it comes from: its `use`s of
/// any visibility (`pub(crate) use sim::Esxcli` lets a sibling name `super::Esxcli`).
pub(crate) fn folder_uses(text: &str, file: &Path) -> BTreeMap<String, String> {
    uses_of(text, file, |_| true)
}

fn uses_of(
    text: &str,
    file: &Path,
    counts: impl Fn(&syn::Visibility) -> bool,
) -> BTreeMap<String, String> {
    let parsed = syn::parse_file(text)
        .unwrap_or_else(|e| panic!("{}: not Rust the scanner can read: {e}", file.display()));
    let mut items = BTreeMap::new();
    for item in parsed.items {
        if let syn::Item::Use(used) = item
            && counts(&used.vis)
            && let syn::UseTree::Path(path) = &used.tree
        {
            let module = path.ident.to_string();
            let mut leaves = Vec::new();
            leaf_names(&path.tree, &mut leaves);
            for leaf in leaves {
                items.insert(leaf, module.clone());
            }
        }
    }
    items
}

/// The names a `use` tree ends in.
fn leaf_names(tree: &syn::UseTree, out: &mut Vec<String>) {
    match tree {
        syn::UseTree::Path(path) => leaf_names(&path.tree, out),
        syn::UseTree::Name(name) => out.push(name.ident.to_string()),
        syn::UseTree::Rename(rename) => out.push(rename.rename.to_string()),
        syn::UseTree::Group(group) => group.items.iter().for_each(|t| leaf_names(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// The `x::...` paths a `use` tree after `crate::` goes on through (`crate::{a::b, c::{d}}`
/// gives `a` and `c`), for the pairs of a folder and its file.
fn crate_modules(tree: &syn::UseTree) -> Vec<&syn::UsePath> {
    match tree {
        syn::UseTree::Path(path) => vec![path],
        syn::UseTree::Group(group) => group.items.iter().flat_map(crate_modules).collect(),
        _ => Vec::new(),
    }
}

/// The first segment of each path a `use` tree after `crate::` names.
fn heads(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(path) => {
            out.insert(path.ident.to_string());
        }
        syn::UseTree::Name(name) => {
            out.insert(name.ident.to_string());
        }
        syn::UseTree::Rename(rename) => {
            out.insert(rename.ident.to_string());
        }
        syn::UseTree::Group(group) => group.items.iter().for_each(|t| heads(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

#[derive(Default)]
struct Visitor {
    named: Named,
    /// Inside a `#[cfg(test)]` item.
    in_test: bool,
    /// How many inline `mod x { ... }` the visitor is inside (`super` there is the file).
    inline_depth: usize,
}

impl Visitor {
    fn found(&mut self, name: String) {
        if self.in_test {
            self.named.tests.insert(name);
        } else {
            self.named.code.insert(name);
        }
    }

    fn found_super(&mut self, name: String) {
        if !self.in_test && self.inline_depth == 0 {
            self.named.supers.insert(name);
        }
    }

    fn found_pair(&mut self, module: String, name: String) {
        if !self.in_test {
            self.named.crate_pairs.insert((module, name));
        }
    }

    /// `crate :: name` in a macro's tokens, groups included.
    fn scan_tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (at, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Group(group) => self.scan_tokens(group.stream()),
                TokenTree::Ident(ident) if ident == "crate" => {
                    if let [TokenTree::Punct(a), TokenTree::Punct(b), next, ..] = &tokens[at + 1..]
                        && a.as_char() == ':'
                        && b.as_char() == ':'
                    {
                        match next {
                            TokenTree::Ident(name) => self.found(name.to_string()),
                            TokenTree::Group(group) => {
                                if let Ok(tree) = syn::parse2::<syn::UseTree>(group.stream()) {
                                    let mut found = BTreeSet::new();
                                    heads(&tree, &mut found);
                                    found.into_iter().for_each(|n| self.found(n));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// Whether an item is `#[cfg(test)]`.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            _ => &[],
        };
        let was = self.in_test;
        self.in_test |= is_test(attrs);
        let inline = matches!(item, syn::Item::Mod(m) if m.content.is_some());
        self.inline_depth += usize::from(inline);
        syn::visit::visit_item(self, item);
        self.inline_depth -= usize::from(inline);
        self.in_test = was;
    }

    fn visit_item_use(&mut self, used: &'ast syn::ItemUse) {
        if let syn::UseTree::Path(path) = &used.tree {
            let mut found = BTreeSet::new();
            heads(&path.tree, &mut found);
            if path.ident == "crate" {
                for module in crate_modules(&path.tree) {
                    let mut names = BTreeSet::new();
                    heads(&module.tree, &mut names);
                    let module = module.ident.to_string();
                    names
                        .into_iter()
                        .for_each(|n| self.found_pair(module.clone(), n));
                }
                found.into_iter().for_each(|n| self.found(n));
            } else if path.ident == "super" {
                found.into_iter().for_each(|n| self.found_super(n));
            }
        }
        syn::visit::visit_item_use(self, used);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let mut segments = path.segments.iter();
        let (first, second, third) = (segments.next(), segments.next(), segments.next());
        if let (Some(first), Some(second)) = (first, second) {
            if first.ident == "crate" {
                self.found(second.ident.to_string());
                if let Some(third) = third {
                    self.found_pair(second.ident.to_string(), third.ident.to_string());
                }
            } else if first.ident == "super" {
                self.found_super(second.ident.to_string());
            }
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.scan_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

#[test]
fn the_scanner_sees_uses_paths_and_macros_but_not_comments() {
    let text = "use crate::ib::sim::PortView;\n// crate::net in a comment\nfn f() { crate::ofed::x(); let _ = \"crate::mst\"; }\nuse crate::{action, machine::{guest, esxi}, ParseError};\nconst M: () = m!(crate::lspci::X);\n#[cfg(test)]\nmod tests {\n    use crate::models::rhel8;\n}\n";
    let named = crate_names(text, Path::new("x.rs"));
    let code: Vec<&str> = named.code.iter().map(String::as_str).collect();
    assert_eq!(
        code,
        ["ParseError", "action", "ib", "lspci", "machine", "ofed"]
    );
    let tests: Vec<&str> = named.tests.iter().map(String::as_str).collect();
    assert_eq!(tests, ["models"]);
}

#[test]
fn re_exports_map_items_to_their_module() {
    let root = "mod a;\npub use a::{Thing, b::Other};\npub use c::d::E as F;\nuse g::H;\n";
    let items = re_exports(root, Path::new("lib.rs"));
    let found: Vec<(&str, &str)> = items
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(found, [("F", "c"), ("Other", "a"), ("Thing", "a")]);
}

#[test]
fn the_scanner_sees_what_a_file_names_of_its_folder() {
    let text = "use super::reads::{self, Setting};\nuse super::{command, Vib};\nuse crate::{action, esxcli::{staged, types::X}};\nfn f() { super::sim::x(); crate::mst::devices::list(); }\nmod inner { fn g() { super::not_a_sibling(); } }\n#[cfg(test)]\nmod tests {\n    use super::builtins;\n}\n";
    let named = crate_names(text, Path::new("x.rs"));
    let supers: Vec<&str> = named.supers.iter().map(String::as_str).collect();
    assert_eq!(supers, ["Vib", "command", "reads", "sim"]);
    let pairs: Vec<(&str, &str)> = named
        .crate_pairs
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("esxcli", "staged"),
            ("esxcli", "types"),
            ("mst", "devices")
        ]
    );
}
