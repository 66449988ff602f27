//! The values of this process's secrets (`secret(...)` params, hosts' vault credentials), each
//! under the name it was given by, and the one [`Redactor`] that replaces them with [`REDACTED`]
//! wherever something is written or shown outside the runbook (journal records, a simulated
//! host's command log, the run's output, failure reports). A journaled result also keeps where
//! each secret was, by name ([`SecretMark`]), so a resume that is given the secrets again
//! replays what the runbook read, not the marker. A value the runbook derives from a secret (a
//! substring, a hash) is not known here and cannot be redacted.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a secret is replaced with.
pub const REDACTED: &str = "<redacted>";

/// The fewest characters a secret may have: a shorter one (`1`, `ab`) occurs by chance in most
/// outputs, and every occurrence shown would become the marker.
pub const MIN_SECRET_CHARS: usize = 4;

/// Why `value` cannot be a secret, when it is too short to redact (the value itself unsaid).
pub fn too_short(value: &str) -> Option<String> {
    let chars = value.chars().count();
    (chars < MIN_SECRET_CHARS).then(|| {
        format!(
            "it is {chars} character(s) long; a secret needs at least {MIN_SECRET_CHARS}, as every occurrence of a shorter one in any output would be redacted"
        )
    })
}

/// Where a journaled value held a secret: the string (a JSON pointer into the value), the byte
/// offset of the marker in it, and the secret's name (`param:NAME`, `vault:NAME`), never its
/// value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretMark {
    /// The JSON pointer of the string in the value (`""` for a value that is the string).
    pub path: String,
    /// The marker's byte offset in the redacted string.
    pub at: usize,
    /// The secret's name.
    pub name: String,
}

/// Replaces every known secret in one pass, the longest match first at each position: a secret
/// that contains another (`pass` and `password`) is replaced whole, and the marker it leaves is
/// never searched again.
#[derive(Default)]
pub struct Redactor {
    /// `None` while there is no secret: nothing to search for.
    matcher: Option<AhoCorasick>,
    /// The secrets by pattern number: name and value.
    secrets: Vec<(String, String)>,
}

impl Redactor {
    /// A redactor for `secrets`, `(name, value)` (empty values ignored: they would match
    /// everywhere).
    pub fn new<'a>(secrets: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let secrets: Vec<(String, String)> = secrets
            .into_iter()
            .filter(|(_, value)| !value.is_empty())
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        if secrets.is_empty() {
            return Self::default();
        }
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(secrets.iter().map(|(_, value)| value))
            .ok();
        Self { matcher, secrets }
    }

    /// `text` with every secret replaced.
    pub fn text(&self, text: &str) -> String {
        self.marked_text(text, &[], &mut Vec::new())
    }

    /// `text` with every secret replaced, noting each in `marks` under the JSON pointer of
    /// `path`'s segments (joined only when there is a secret to note).
    fn marked_text(&self, text: &str, path: &[String], marks: &mut Vec<SecretMark>) -> String {
        let Some(matcher) = &self.matcher else {
            return text.to_owned();
        };
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for found in matcher.find_iter(text) {
            out.push_str(&text[last..found.start()]);
            if let Some((name, _)) = self.secrets.get(found.pattern().as_usize()) {
                marks.push(SecretMark {
                    path: path.iter().map(|segment| format!("/{segment}")).collect(),
                    at: out.len(),
                    name: name.clone(),
                });
            }
            out.push_str(REDACTED);
            last = found.end();
        }
        out.push_str(&text[last..]);
        out
    }

    /// `value` with every secret inside its strings replaced (keys are names, never secrets).
    pub fn value(&self, value: Value) -> Value {
        self.marked(value).0
    }

    /// `value` with every secret inside its strings replaced, and where each one was: what a
    /// journaled result keeps, so [`Redactor::restore`] can give the runbook back what it read.
    pub fn marked(&self, value: Value) -> (Value, Vec<SecretMark>) {
        let mut marks = Vec::new();
        if self.matcher.is_none() {
            return (value, marks);
        }
        let value = self.marked_value(value, &mut Vec::new(), &mut marks);
        (value, marks)
    }

    fn marked_value(
        &self,
        value: Value,
        path: &mut Vec<String>,
        marks: &mut Vec<SecretMark>,
    ) -> Value {
        let mut inside = |segment: String, item: Value, marks: &mut Vec<SecretMark>| {
            path.push(segment);
            let item = self.marked_value(item, path, marks);
            path.pop();
            item
        };
        match value {
            Value::String(text) => Value::String(self.marked_text(&text, path, marks)),
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| inside(i.to_string(), item, marks))
                    .collect(),
            ),
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(key, item)| {
                        let segment = key.replace('~', "~0").replace('/', "~1");
                        let item = inside(segment, item, marks);
                        (key, item)
                    })
                    .collect(),
            ),
            other => other,
        }
    }

    /// `value` as it was before [`Redactor::marked`]: each mark's marker replaced by the secret
    /// of its name. `Err` names a secret this process was not given, or a mark that does not
    /// fit the value (a journal edited by hand).
    pub fn restore(&self, value: &Value, marks: &[SecretMark]) -> Result<Value, String> {
        let mut value = value.clone();
        let mut marks: Vec<&SecretMark> = marks.iter().collect();
        // From the end of each string, so the offsets still to come stay true.
        marks.sort_by(|a, b| (&b.path, b.at).cmp(&(&a.path, a.at)));
        for mark in marks {
            let secret = self
                .secrets
                .iter()
                .find(|(name, _)| *name == mark.name)
                .map(|(_, secret)| secret)
                .ok_or_else(|| format!("the secret `{}` was not given", mark.name))?;
            let text = match value.pointer_mut(&mark.path) {
                Some(Value::String(text)) => text,
                _ => return Err(format!("no string at `{}` for a secret", mark.path)),
            };
            let end = mark.at + REDACTED.len();
            if text.get(mark.at..end) != Some(REDACTED) {
                return Err(format!("no marker at byte {} of `{}`", mark.at, mark.path));
            }
            text.replace_range(mark.at..end, secret);
        }
        Ok(value)
    }
}

/// The registered secrets and the redactor built from them, rebuilt when one is added (rare:
/// once per secret), shared by every reader.
struct Registry {
    secrets: Vec<(String, String)>,
    redactor: Arc<Redactor>,
}

static REGISTRY: RwLock<Option<Registry>> = RwLock::new(None);

/// Adds a secret value under `name` (`param:NAME`, `vault:NAME`: how a resume is given it
/// again); an empty one would match everywhere, and is ignored. A value registered under
/// another name keeps its first.
pub fn register(name: &str, value: &str) {
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
    if !registry.secrets.iter().any(|(_, s)| s == value) {
        registry.secrets.push((name.to_owned(), value.to_owned()));
        let pairs = registry
            .secrets
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()));
        registry.redactor = Arc::new(Redactor::new(pairs));
    }
}

/// The name a `secret(...)` param's value is registered under.
pub fn param_name(param: &str) -> String {
    format!("param:{param}")
}

/// The name a vault secret a host var names is registered under.
pub fn vault_name(secret: &str) -> String {
    format!("vault:{secret}")
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

    fn named<'a>(values: &[&'a str]) -> Vec<(&'a str, &'a str)> {
        values.iter().map(|v| ("param:x", *v)).collect()
    }

    #[test]
    fn a_secret_inside_another_is_replaced_whole_whatever_the_order() {
        for secrets in [["pass", "password"], ["password", "pass"]] {
            let redactor = Redactor::new(named(&secrets));
            assert_eq!(
                redactor.text("echo password pass passwor"),
                "echo <redacted> <redacted> <redacted>wor"
            );
        }
    }

    #[test]
    fn the_marker_left_behind_is_not_searched_again() {
        let redactor = Redactor::new(named(&["s3cr3t", "red"]));
        assert_eq!(redactor.text("a s3cr3t b"), "a <redacted> b");
    }

    #[test]
    fn values_are_redacted_in_nested_strings_only() {
        let redactor = Redactor::new(named(&["tok"]));
        let value = serde_json::json!({"argv": ["echo", "xtoky"], "tok": 3});
        assert_eq!(
            redactor.value(value),
            serde_json::json!({"argv": ["echo", "x<redacted>y"], "tok": 3})
        );
        assert_eq!(Redactor::new(named(&[""])).text("anything"), "anything");
    }

    #[test]
    fn a_marked_value_is_restored_whole_even_beside_a_literal_marker() {
        let redactor = Redactor::new([("param:pin", "7391"), ("vault:root", "Rt-99x")]);
        let value = serde_json::json!({
            "stdout": "73916 <redacted> 7391",
            "a/b~": ["x", "Rt-99x7391"],
            "n": 7391
        });
        let (shown, marks) = redactor.marked(value.clone());
        assert_eq!(shown["stdout"], "<redacted>6 <redacted> <redacted>");
        assert_eq!(shown["a/b~"][1], "<redacted><redacted>");
        assert_eq!(marks.len(), 4, "{marks:?}");
        assert_eq!(redactor.restore(&shown, &marks), Ok(value));
        let without = Redactor::new([("param:pin", "7391")]);
        assert!(without.restore(&shown, &marks).is_err());
        let mut moved = marks.clone();
        moved[0].at += 1;
        assert!(redactor.restore(&shown, &moved).is_err());
    }

    #[test]
    fn registered_values_are_redacted_longest_first() {
        register("param:a", "s3cr3t-token");
        register("param:b", "s3cr3t-token-part");
        register("param:c", "");
        assert_eq!(
            redact("a s3cr3t-token-part b s3cr3t-token c"),
            "a <redacted> b <redacted> c"
        );
        assert_eq!(redact("nothing"), "nothing");
    }

    #[test]
    fn short_values_are_named_too_short() {
        assert!(too_short("1").is_some() && too_short("abc").is_some());
        assert!(too_short("abcd").is_none() && too_short("ééé1").is_none());
    }
}
