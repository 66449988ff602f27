//! The values of this process's `secret(...)` params, so that every place that writes outside
//! the runbook (journal records, a simulated host's command log, the run's output) can replace
//! them with `<redacted>`. A value the runbook derives from a secret (a substring, a hash) is
//! not known here and cannot be redacted.

use std::collections::BTreeMap;
use std::sync::RwLock;

/// What a secret is replaced with.
pub const REDACTED: &str = "<redacted>";

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Adds a secret value (an empty one would match everywhere, and is ignored).
pub fn register(value: &str) {
    if value.is_empty() {
        return;
    }
    let mut secrets = SECRETS
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !secrets.iter().any(|s| s == value) {
        secrets.push(value.to_owned());
        // Longest first, so a secret that contains another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// The registered secrets, longest first.
pub(crate) fn all() -> Vec<String> {
    SECRETS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

/// `text` with every registered secret replaced.
pub fn redact(text: &str) -> String {
    let secrets = SECRETS
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    secrets.iter().fold(text.to_owned(), |text, secret| {
        text.replace(secret.as_str(), REDACTED)
    })
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
    fn registered_values_are_redacted_longest_first() {
        register("s3cr3t-token-part");
        register("s3cr3t-token");
        register("");
        assert_eq!(
            redact("a s3cr3t-token-part b s3cr3t-token c"),
            "a <redacted> b <redacted> c"
        );
        assert_eq!(redact("nothing"), "nothing");
    }
}
