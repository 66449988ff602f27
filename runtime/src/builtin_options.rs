//! The `#{...}` option maps builtins take (`run(argv, #{ allow_fail: true })`).
//!
//! Each builtin declares its keys once, as a [`BuiltinOptions`]; the builtin checks the map it
//! is given against it when called, and `cairn check` checks a literal map in the runbook
//! against the same declaration. An unknown key (`forse` for `force`) or a value of the wrong
//! type is refused rather than ignored: an ignored `forse: false` would install *with* force.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use rhai::{Dynamic, Map};

use crate::inventory::closest;

/// The type an option's value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionType {
    /// Any value.
    Any,
    /// An array.
    Array,
    /// `true` or `false`.
    Bool,
    /// An integer.
    Int,
    /// A string.
    Text,
}

impl OptionType {
    /// Whether `value` has this type.
    pub fn accepts(self, value: &Dynamic) -> bool {
        match self {
            Self::Any => true,
            Self::Array => value.is_array(),
            Self::Bool => value.is_bool(),
            Self::Int => value.is_int(),
            Self::Text => value.is_string(),
        }
    }

    /// The type in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Any => "any value",
            Self::Array => "an array",
            Self::Bool => "true or false",
            Self::Int => "an integer",
            Self::Text => "a string",
        }
    }
}

/// One key of an option map.
#[derive(Debug, Clone, Copy)]
pub struct OptionKey {
    /// The key.
    pub name: &'static str,
    /// Its value's type.
    pub kind: OptionType,
}

/// The keys one builtin's option map takes.
#[derive(Debug)]
pub struct BuiltinOptions {
    /// The builtin, as a runbook calls it (`ofed::install`).
    pub builtin: &'static str,
    /// The position of the options map among its arguments (0-based).
    pub arg: usize,
    /// Its keys.
    pub keys: &'static [OptionKey],
}

impl BuiltinOptions {
    /// Checks a map given at run time: every key known, every value of its type.
    pub fn check(&self, options: &Map) -> Result<(), String> {
        for (key, value) in options {
            self.check_key(key, Some(value))?;
        }
        Ok(())
    }

    /// Checks one key, and its value when it is known.
    pub fn check_key(&self, key: &str, value: Option<&Dynamic>) -> Result<(), String> {
        let Some(known) = self.keys.iter().find(|k| k.name == key) else {
            let names: Vec<&str> = self.keys.iter().map(|k| k.name).collect();
            let near = closest(key, names.iter().copied())
                .map(|near| format!("did you mean `{near}`? "))
                .unwrap_or_default();
            return Err(format!(
                "`{}` has no option `{key}`; {near}its options: {}",
                self.builtin,
                names.join(", ")
            ));
        };
        match value {
            Some(value) if !known.kind.accepts(value) => Err(format!(
                "`{}` option `{key}` takes {}, not {} `{value}`",
                self.builtin,
                known.kind.describe(),
                value.type_name()
            )),
            _ => Ok(()),
        }
    }
}

fn registry() -> &'static Mutex<BTreeMap<&'static str, &'static BuiltinOptions>> {
    static REGISTRY: OnceLock<Mutex<BTreeMap<&'static str, &'static BuiltinOptions>>> =
        OnceLock::new();
    REGISTRY.get_or_init(Mutex::default)
}

/// Declares a builtin's options, so `cairn check` knows them; installers call it.
pub fn declare_options(options: &'static BuiltinOptions) {
    if let Ok(mut registry) = registry().lock() {
        registry.insert(options.builtin, options);
    }
}

/// The declared options of `builtin`, if it takes an option map.
pub fn declared_options(builtin: &str) -> Option<&'static BuiltinOptions> {
    registry()
        .lock()
        .ok()
        .and_then(|registry| registry.get(builtin).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORCE: BuiltinOptions = BuiltinOptions {
        builtin: "x::install",
        arg: 1,
        keys: &[
            OptionKey {
                name: "force",
                kind: OptionType::Bool,
            },
            OptionKey {
                name: "dir",
                kind: OptionType::Text,
            },
        ],
    };

    #[test]
    fn refuses_an_unknown_key_with_a_suggestion() {
        let mut map = Map::new();
        map.insert("forse".into(), false.into());
        let error = FORCE.check(&map).unwrap_err();
        assert!(error.contains("no option `forse`"), "{error}");
        assert!(error.contains("did you mean `force`"), "{error}");
        assert!(error.contains("force, dir"), "{error}");
    }

    #[test]
    fn refuses_a_wrong_type_and_accepts_the_right_one() {
        let mut map = Map::new();
        map.insert("force".into(), "no".into());
        let error = FORCE.check(&map).unwrap_err();
        assert!(error.contains("takes true or false"), "{error}");
        map.insert("force".into(), true.into());
        map.insert("dir".into(), "/root".into());
        assert!(FORCE.check(&map).is_ok());
    }
}
