//! The builtin catalog: every function a runbook can call, read once from rhai's function
//! metadata (qualified name, parameters with runbook types, return type, doc comment without
//! its `///` markers). The checker, `:help`, the REPL's and the editor's completion,
//! docs/builtins.md and the journal-name pin test all read it; nothing else reads the metadata.
//! The core vocabulary's help is registered with its functions (`documented.rs`), the vendor
//! namespaces' with their `#[export_module]` doc comments, so the catalog holds the whole help.

use std::any::TypeId;
use std::collections::BTreeSet;

use rhai::Engine;

/// One overload of a builtin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builtin {
    /// How a runbook calls it: `run`, `net::set_mtu`.
    pub name: String,
    /// Its namespace (`net`), empty for a global function.
    pub namespace: String,
    /// Its name within the namespace: `set_mtu`.
    pub function: String,
    /// Its parameters, as a runbook sees them.
    pub params: Vec<Param>,
    /// Its parameters' Rust types, for the checker's literal arguments.
    pub param_types: Vec<TypeId>,
    /// What it returns, as a runbook writes it (`map`); `()` for nothing.
    pub returns: String,
    /// The return type as registered; the checker's "returns nothing" reads exactly `()`.
    rust_returns: String,
    /// Its doc comment's text, without the comment markers.
    pub doc: String,
    /// Whether it comes from rhai's standard packages rather than cairn.
    pub standard: bool,
    /// Whether a namespace's function is found without its namespace too (rhai's global
    /// namespace: `#[rhai_fn(global)]`), as a bare call or a method.
    pub global: bool,
}

/// One parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Its name (`argv`), or `value` when it was registered without one.
    pub name: String,
    /// Its type as a runbook writes it (`array`).
    pub kind: String,
}

impl Builtin {
    /// `name(param: type, ...) -> type`, as `:help` and `cairn check` show it.
    pub fn display(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.kind))
            .collect();
        let returns = if self.returns == "()" {
            String::new()
        } else {
            format!(" -> {}", self.returns)
        };
        format!("{}({}){returns}", self.name, params.join(", "))
    }

    /// Whether it was registered as returning `()`.
    pub(crate) fn returns_nothing(&self) -> bool {
        self.rust_returns == "()"
    }

    /// A name a runbook can call (not an operator, not rhai's `get$len`).
    pub fn is_callable(&self) -> bool {
        self.function
            .starts_with(|c: char| c.is_alphabetic() || c == '_')
            && !self.function.contains('$')
    }
}

/// Every function of an engine, cairn's and rhai's standard library.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// By namespace and name, then in registration order.
    builtins: Vec<Builtin>,
}

impl Catalog {
    /// Reads the engine's function metadata, once.
    pub fn of(engine: &Engine) -> Self {
        // cairn's `trim` has the standard library's signature, so its hash too: a function is
        // told apart by where its metadata lives, read twice from the same modules.
        let at = |metadata: &rhai::FuncMetadata| std::ptr::from_ref(metadata) as usize;
        let ours: BTreeSet<usize> = engine
            .collect_fn_metadata(None, |info| Some(at(info.metadata)), false)
            .into_iter()
            .collect();
        let mut builtins = engine.collect_fn_metadata(
            None,
            |info| {
                let metadata = info.metadata;
                let function = metadata.name.to_string();
                let namespace = info.namespace.to_string();
                let name = if namespace.is_empty() {
                    function.clone()
                } else {
                    format!("{namespace}::{function}")
                };
                let params = metadata
                    .params_info
                    .iter()
                    .map(|param| {
                        let (given, kind) = param
                            .split_once(':')
                            .map_or(("_", param.as_str()), |(n, t)| (n.trim(), t.trim()));
                        let given = if matches!(given, "_" | "") {
                            "value"
                        } else {
                            given
                        };
                        Param {
                            name: given.to_owned(),
                            kind: rhai_type(kind),
                        }
                    })
                    .collect();
                Some(Builtin {
                    name,
                    namespace,
                    function,
                    params,
                    param_types: metadata.param_types.to_vec(),
                    returns: rhai_type(&metadata.return_type),
                    rust_returns: metadata.return_type.to_string(),
                    doc: comment_text(&metadata.comments),
                    standard: !ours.contains(&at(metadata)),
                    global: metadata.namespace == rhai::FnNamespace::Global,
                })
            },
            true,
        );
        // Overloads of one arity by their parameters as a runbook sees them: rhai hands its
        // functions over in no fixed order, and the generated docs must come out the same
        // every time (a `TypeId` would not do: it differs between builds).
        builtins.sort_by(|a, b| {
            let key = |b: &Builtin| {
                let params: Vec<(String, String)> = b
                    .params
                    .iter()
                    .map(|p| (p.kind.clone(), p.name.clone()))
                    .collect();
                (
                    b.namespace.clone(),
                    b.function.clone(),
                    b.params.len(),
                    params,
                )
            };
            key(a).cmp(&key(b))
        });
        Self { builtins }
    }

    /// Every overload, by namespace and name.
    pub fn all(&self) -> &[Builtin] {
        &self.builtins
    }

    /// The overloads of `name` (`run`, `net::set_mtu`).
    pub fn overloads<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Builtin> + 'a {
        self.builtins.iter().filter(move |b| b.name == name)
    }

    /// Every callable name, sorted, once each.
    pub fn names(&self) -> Vec<String> {
        let names: BTreeSet<&str> = self
            .builtins
            .iter()
            .filter(|b| b.is_callable())
            .map(|b| b.name.as_str())
            .collect();
        names.into_iter().map(str::to_owned).collect()
    }
}

/// A doc comment's text: `///` lines and `/** */` blocks without their markers.
fn comment_text(comments: &[impl AsRef<str>]) -> String {
    let lines: Vec<&str> = comments
        .iter()
        .flat_map(|c| c.as_ref().lines())
        .map(|l| {
            let l = l
                .trim_start_matches("///")
                .trim_start_matches("/**")
                .trim_end_matches("*/");
            l.strip_prefix(' ').unwrap_or(l)
        })
        .collect();
    lines.join("\n").trim().to_owned()
}

/// A Rust type from the metadata as a runbook sees it.
pub fn rhai_type(rust: &str) -> String {
    let rust = rust.trim();
    for wrapper in ["RhaiResult<", "Result<", "core::result::Result<"] {
        if let Some(inner) = rust.strip_prefix(wrapper) {
            let inner = inner.strip_suffix('>').unwrap_or(inner);
            return rhai_type(first_generic(inner));
        }
    }
    let last = rust.trim_start_matches('&').trim_start_matches("mut ");
    let base = last.split('<').next().unwrap_or(last);
    match base.rsplit("::").next().unwrap_or(base) {
        "String" | "str" | "ImmutableString" | "SmartString" | "string" => "string".into(),
        "i64" | "INT" | "int" => "int".into(),
        "f64" | "FLOAT" | "float" => "float".into(),
        "bool" => "bool".into(),
        "Array" | "Vec" | "array" => "array".into(),
        "Map" | "BTreeMap" | "map" => "map".into(),
        "FnPtr" | "Fn" => "Fn".into(),
        "Dynamic" => "any".into(),
        "char" => "char".into(),
        "()" | "" => "()".into(),
        other => other.to_owned(),
    }
}

/// The first type argument of `A<B, C>`'s inside, `B`, minding nested `<>`.
fn first_generic(inner: &str) -> &str {
    let mut depth = 0;
    for (at, c) in inner.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => return &inner[..at],
            _ => {}
        }
    }
    inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_read_as_a_runbook_writes_them() {
        assert_eq!(
            rhai_type(
                "core::result::Result<alloc::collections::btree::map::BTreeMap<smartstring::SmartString<smartstring::config::LazyCompact>,rhai::types::dynamic::Dynamic>,alloc::boxed::Box<rhai::types::error::EvalAltResult>>"
            ),
            "map"
        );
        assert_eq!(rhai_type("RhaiResult<bool>"), "bool");
        assert_eq!(rhai_type("&str"), "string");
        assert_eq!(rhai_type("i64"), "int");
        assert_eq!(rhai_type(""), "()");
    }

    #[test]
    fn doc_comments_lose_their_markers() {
        assert_eq!(
            comment_text(&["/// Runs it.\n///\n///     indented", "/** A block. */"]),
            "Runs it.\n\n    indented\nA block."
        );
    }

    #[test]
    fn the_catalog_knows_core_and_standard_functions() {
        let engine = crate::build_engine(
            &crate::ImportPath::at(std::path::Path::new(".")),
            &[],
            u64::MAX,
        );
        let catalog = Catalog::of(&engine);
        let run: Vec<&Builtin> = catalog.overloads("run").collect();
        assert!(run.iter().all(|b| !b.standard && b.namespace.is_empty()));
        assert!(
            run.iter()
                .any(|b| b.display() == "run(argv: array, options: map) -> map"),
            "{run:?}"
        );
        assert!(catalog.overloads("len").all(|b| b.standard));
        let names = catalog.names();
        assert!(names.iter().any(|n| n == "retry"), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with('+') || n.contains('$')));
    }
}
