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
    let parsed = syn::parse_file(root)
        .unwrap_or_else(|e| panic!("{}: not Rust the scanner can read: {e}", file.display()));
    let mut items = BTreeMap::new();
    for item in parsed.items {
        if let syn::Item::Use(used) = item
            && matches!(used.vis, syn::Visibility::Public(_))
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
}

impl Visitor {
    fn found(&mut self, name: String) {
        if self.in_test {
            self.named.tests.insert(name);
        } else {
            self.named.code.insert(name);
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
        syn::visit::visit_item(self, item);
        self.in_test = was;
    }

    fn visit_item_use(&mut self, used: &'ast syn::ItemUse) {
        if let syn::UseTree::Path(path) = &used.tree
            && path.ident == "crate"
        {
            let mut found = BTreeSet::new();
            heads(&path.tree, &mut found);
            found.into_iter().for_each(|n| self.found(n));
        }
        syn::visit::visit_item_use(self, used);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let mut segments = path.segments.iter();
        if let (Some(first), Some(second)) = (segments.next(), segments.next())
            && first.ident == "crate"
        {
            self.found(second.ident.to_string());
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
