//! The values of this process's `secret(...)` params, and the one [`Redactor`] that replaces
//! them with [`REDACTED`] wherever something is written or shown outside the runbook (journal
//! records, a simulated host's command log, the run's output, failure reports). A value the
//! runbook derives from a secret (a substring, a hash) is not known here and cannot be redacted.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

/// What a secret is replaced with.
pub const REDACTED: &str = "<redacted>";

/// Replaces every known secret in one pass, the longest match first at each position: a secret
/// that contains another (`pass` and `password`) is replaced whole, and the marker it leaves is
/// never searched again.
#[derive(Default)]
pub struct Redactor {
    /// `None` while there is no secret: nothing to search for.
    matcher: Option<AhoCorasick>,
}

impl Redactor {
    /// A redactor for `secrets` (empty values ignored: they would match everywhere).
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let secrets: Vec<&str> = secrets.into_iter().filter(|s| !s.is_empty()).collect();
        if secrets.is_empty() {
            return Self::default();
        }
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&secrets)
            .ok();
        Self { matcher }
    }

    /// `text` with every secret replaced.
    pub fn text(&self, text: &str) -> String {
        match &self.matcher {
            Some(matcher) => matcher.replace_all(text, &vec![REDACTED; matcher.patterns_len()]),
            None => text.to_owned(),
        }
    }

    /// `value` with every secret inside its strings replaced (keys are names, never secrets).
    pub fn value(&self, value: Value) -> Value {
        if self.matcher.is_none() {
            return value;
        }
        match value {
            Value::String(text) => Value::String(self.text(&text)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(key, item)| (key, self.value(item)))
                    .collect(),
            ),
            other => other,
        }
    }
}

/// The registered secrets and the redactor built from them, rebuilt when one is added (rare:
/// once per secret param), shared by every reader.
struct Registry {
    secrets: Vec<String>,
    redactor: Arc<Redactor>,
}

static REGISTRY: RwLock<Option<Registry>> = RwLock::new(None);

/// Adds a secret value (an empty one would match everywhere, and is ignored).
pub fn register(value: &str) {
    if value.is_empty() {
        return;
    }
    let mut registry = REGISTRY
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let registry = registry.get_or_insert_with(|| Registry {
        secrets: Vec::new(),
        redactor: Arc::default(),
    });
    if !registry.secrets.iter().any(|s| s == value) {
        registry.secrets.push(value.to_owned());
        registry.redactor = Arc::new(Redactor::new(registry.secrets.iter().map(String::as_str)));
    }
}

/// The redactor of every secret registered so far.
pub fn redactor() -> Arc<Redactor> {
    REGISTRY
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
        .map(|registry| Arc::clone(&registry.redactor))
        .unwrap_or_default()
}

/// `text` with every registered secret replaced.
pub fn redact(text: &str) -> String {
    redactor().text(text)
}

/// `params` with the values of the secret ones replaced, as run.json and headers keep them.
pub fn redact_params(
    params: &BTreeMap<String, String>,
    secret_names: &[&str],
) -> BTreeMap<String, String> {
    params
        .iter()
        .map(|(name, value)| {
            let value = if secret_names.contains(&name.as_str()) {
                REDACTED.to_owned()
            } else {
                value.clone()
            };
            (name.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_inside_another_is_replaced_whole_whatever_the_order() {
        for secrets in [["pass", "password"], ["password", "pass"]] {
            let redactor = Redactor::new(secrets);
            assert_eq!(
                redactor.text("echo password pass passwor"),
                "echo <redacted> <redacted> <redacted>wor"
            );
        }
    }

    #[test]
    fn the_marker_left_behind_is_not_searched_again() {
        let redactor = Redactor::new(["s3cr3t", "red"]);
        assert_eq!(redactor.text("a s3cr3t b"), "a <redacted> b");
    }

    #[test]
    fn values_are_redacted_in_nested_strings_only() {
        let redactor = Redactor::new(["tok"]);
        let value = serde_json::json!({"argv": ["echo", "xtoky"], "tok": 3});
        assert_eq!(
            redactor.value(value),
            serde_json::json!({"argv": ["echo", "x<redacted>y"], "tok": 3})
        );
        assert_eq!(Redactor::new([""]).text("anything"), "anything");
    }

    #[test]
    fn registered_values_are_redacted_longest_first() {
        register("s3cr3t-token");
        register("s3cr3t-token-part");
        register("");
        assert_eq!(
            redact("a s3cr3t-token-part b s3cr3t-token c"),
            "a <redacted> b <redacted> c"
        );
        assert_eq!(redact("nothing"), "nothing");
    }
}
