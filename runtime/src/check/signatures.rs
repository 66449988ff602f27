//! The builtins' signatures by name, from the catalog (`catalog.rs`): what `cairn check` reads
//! for names, argument counts, argument types and what a call returns.

use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet};

use rhai::{Array, Dynamic, Engine, FLOAT, INT, ImmutableString, Map};

/// rhai's keywords that look like calls but are no registered function.
pub(crate) const KEYWORDS: &[&str] = &[
    "Fn",
    "call",
    "curry",
    "debug",
    "eval",
    "is_def_fn",
    "is_def_var",
    "is_shared",
    "print",
    "type_of",
];

/// One registered function.
#[derive(Debug, Clone)]
pub(crate) struct Signature {
    /// How a runbook writes it, with its parameters (`net::set_mtu(iface: &str, mtu: i64)`).
    pub(crate) display: String,
    /// Its parameters' types.
    pub(crate) params: Vec<TypeId>,
    /// Whether it was registered as returning `()`.
    pub(crate) returns_nothing: bool,
}

/// Every registered function by qualified name (`run`, `net::set_mtu`, `trim`), and a
/// namespace's global functions by their bare name as well.
#[derive(Debug, Default)]
pub(crate) struct Signatures {
    pub(crate) by_name: BTreeMap<String, Vec<Signature>>,
}

impl Signatures {
    /// Every function of the engine's catalog, the standard library's included.
    pub(crate) fn of(engine: &Engine) -> Self {
        let mut by_name: BTreeMap<String, Vec<Signature>> = BTreeMap::new();
        for builtin in crate::Catalog::of(engine).all() {
            let signature = Signature {
                display: builtin.display(),
                params: builtin.param_types.clone(),
                returns_nothing: builtin.returns_nothing(),
            };
            // A namespace's global function answers its bare name too (rhai looks there).
            if builtin.global && !builtin.namespace.is_empty() {
                let bare = by_name.entry(builtin.function.clone()).or_default();
                bare.push(signature.clone());
            }
            by_name
                .entry(builtin.name.clone())
                .or_default()
                .push(signature);
        }
        Self { by_name }
    }

    /// The signatures of `name` with `arity` parameters.
    pub(crate) fn with_arity(&self, name: &str, arity: usize) -> Vec<&Signature> {
        self.by_name
            .get(name)
            .map(|all| all.iter().filter(|s| s.params.len() == arity).collect())
            .unwrap_or_default()
    }

    /// Every signature of `name`, as a runbook writes it: `` `len(...)` or `len(...)` ``.
    pub(crate) fn list(&self, name: &str) -> String {
        self.by_name
            .get(name)
            .map(|all| {
                all.iter()
                    .map(|s| format!("`{}`", s.display))
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect::<Vec<_>>()
                    .join(" or ")
            })
            .unwrap_or_default()
    }

    /// Whether every function `name` with `arity` parameters returns nothing.
    pub(crate) fn returns_nothing(&self, name: &str, arity: usize) -> bool {
        let candidates = self.with_arity(name, arity);
        !candidates.is_empty() && candidates.iter().all(|s| s.returns_nothing)
    }
}

/// Whether a parameter of type `param` can take `value`.
pub(crate) fn accepts(param: TypeId, value: &Dynamic) -> bool {
    if param == TypeId::of::<Dynamic>() {
        return true;
    }
    let actual = if value.is_int() {
        TypeId::of::<INT>()
    } else if value.is_float() {
        TypeId::of::<FLOAT>()
    } else if value.is_bool() {
        TypeId::of::<bool>()
    } else if value.is_string() {
        TypeId::of::<ImmutableString>()
    } else if value.is_array() {
        TypeId::of::<Array>()
    } else if value.is_map() {
        TypeId::of::<Map>()
    } else if value.is_unit() {
        TypeId::of::<()>()
    } else {
        return true;
    };
    let text = [TypeId::of::<ImmutableString>(), TypeId::of::<String>()];
    param == actual || (text.contains(&param) && text.contains(&actual))
}

/// A literal value's type in words.
pub(crate) fn describe(value: &Dynamic) -> String {
    if value.is_string() {
        format!("the string {value:?}")
    } else if value.is_unit() {
        "`()`".into()
    } else {
        format!("{} `{value}`", value.type_name())
    }
}
