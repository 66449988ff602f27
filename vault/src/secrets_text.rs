//! A vault's plaintext: a TOML table of strings, one secret per name. Its errors say where
//! (line, column, the name) and never quote the text, which is secret.

use std::collections::BTreeMap;
use std::path::Path;

use toml::de::{DeTable, DeValue};

use crate::VaultError;

/// The secrets of `text`, by name.
pub(crate) fn parse(vault: &Path, text: &str) -> Result<BTreeMap<String, String>, VaultError> {
    let at = |reason: String, offset: usize| {
        let (line, column) = line_column(text, offset);
        VaultError::Syntax {
            path: vault.to_owned(),
            reason,
            line,
            column,
        }
    };
    let table = DeTable::parse(text).map_err(|e| {
        at(
            e.message().to_owned(),
            e.span().map_or(0, |span| span.start),
        )
    })?;
    let mut secrets = BTreeMap::new();
    for (name, value) in table.get_ref() {
        match value.get_ref() {
            DeValue::String(secret) => {
                secrets.insert(name.get_ref().to_string(), secret.to_string());
            }
            other => {
                return Err(at(
                    format!(
                        "`{}` is {}, not a string",
                        name.get_ref(),
                        article(other.type_str())
                    ),
                    value.span().start,
                ));
            }
        }
    }
    Ok(secrets)
}

/// What a new vault's editor starts with.
pub(crate) const TEMPLATE: &str = "\
# One secret per line: NAME = \"VALUE\". A `secret(...)` param reads the secret of its own
# name; an inventory host's `password_vault = \"NAME\"` its SSH password.
";

fn article(kind: &str) -> String {
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_by_name_and_errors_that_never_quote_the_text() {
        let vault = Path::new("site.vault");
        let parsed = parse(
            vault,
            "# comment\nesx-root = \"hunter2\"\n\"bmc pw\" = 'x'\n",
        );
        let Ok(parsed) = parsed else {
            panic!("{parsed:?}");
        };
        assert_eq!(parsed.get("esx-root").map(String::as_str), Some("hunter2"));
        assert_eq!(parsed.get("bmc pw").map(String::as_str), Some("x"));

        let error = parse(vault, "a = \"ok\"\npin = 12345678\n");
        let Err(VaultError::Syntax {
            reason,
            line,
            column,
            ..
        }) = error
        else {
            panic!("{error:?}");
        };
        assert_eq!(
            (reason.as_str(), line, column),
            ("`pin` is an integer, not a string", 2, 7)
        );

        let error = parse(vault, "ok = \"x\"\nleaky = \"s3cr3t-unterminated\n");
        let Err(error @ VaultError::Syntax { line: 2, .. }) = error else {
            panic!("{error:?}");
        };
        assert!(!error.to_string().contains("s3cr3t"), "{error}");
    }
}
