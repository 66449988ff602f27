//! `--param-file FILE`: plain params as a TOML table (`retries = 3`, `mtu = 9000`,
//! `firmware = "16.35.2000"`), checked as `--param` is, an error pointing into the file.
//! `--param NAME=VALUE` given too wins over the file.

use std::collections::BTreeMap;
use std::path::Path;

use miette::{NamedSource, SourceSpan};
use rhai::AST;
use toml::de::{DeTable, DeValue};

use crate::param_value::{ParamError, check_params};

/// The params of one file, with where each is written.
#[derive(Debug, Clone)]
pub struct ParamFile {
    name: String,
    text: String,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    name_span: SourceSpan,
    value: String,
    value_span: SourceSpan,
}

impl ParamFile {
    /// Reads and parses `path`: a table of strings, integers, floats and booleans.
    pub fn load(path: &Path) -> Result<Self, ParamError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ParamError {
            help: None,
            message: format!("cannot read the param file `{name}`: {e}"),
            source_code: NamedSource::new("command line", format!("--param-file {name}")),
            span: (13, name.len().max(1)).into(),
        })?;
        Self::parse(&name, text)
    }

    /// Parses `text`, named `name` in errors.
    pub fn parse(name: &str, text: String) -> Result<Self, ParamError> {
        let error = |message: String, help: Option<String>, span: SourceSpan| ParamError {
            help,
            message,
            source_code: NamedSource::new(name, text.clone()),
            span,
        };
        let table = DeTable::parse(&text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            error(
                format!("`{name}` is not TOML: {}", e.message()),
                None,
                (span.start, span.len()).into(),
            )
        })?;
        // The same text read again for the values themselves (`0x1f`, `1_000` as numbers).
        let values: toml::Table = text.parse().unwrap_or_default();
        let mut entries = Vec::new();
        for (key, value) in table.get_ref() {
            let span = value.span();
            let text_of = match (value.get_ref(), values.get(key.get_ref().as_ref())) {
                (DeValue::String(s), _) => s.to_string(),
                (_, Some(toml::Value::Integer(n))) => n.to_string(),
                (_, Some(toml::Value::Float(x))) => x.to_string(),
                (_, Some(toml::Value::Boolean(b))) => b.to_string(),
                (other, _) => {
                    return Err(error(
                        format!(
                            "param `{}` is {}: a param file gives strings, integers, floats and booleans",
                            key.get_ref(),
                            other.type_str()
                        ),
                        Some("write `name = value` at the top level, one per param".into()),
                        (span.start, span.len()).into(),
                    ));
                }
            };
            let key_span = key.span();
            entries.push(Entry {
                name: key.get_ref().to_string(),
                name_span: (key_span.start, key_span.len()).into(),
                value: text_of,
                value_span: (span.start, span.len()).into(),
            });
        }
        Ok(Self {
            name: name.to_owned(),
            text,
            entries,
        })
    }

    /// The params, by name.
    pub fn params(&self) -> BTreeMap<String, String> {
        self.entries
            .iter()
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect()
    }

    /// Checks each param as `--param` is checked, the error pointing at its name (a name the
    /// runbook does not declare) or its value (one it cannot take) in the file.
    pub fn check(&self, ast: &AST) -> Result<(), ParamError> {
        for entry in &self.entries {
            let one = BTreeMap::from([(entry.name.clone(), entry.value.clone())]);
            if let Err(error) = check_params(ast, &one) {
                let unknown = error.message.starts_with("the runbook declares no param");
                // The message names the value as given, or `<redacted>` when it holds a secret.
                let rest = [entry.value.as_str(), crate::secrets::REDACTED]
                    .into_iter()
                    .find_map(|shown| {
                        let prefix = format!("--param {}={shown}: ", entry.name);
                        error.message.strip_prefix(&prefix)
                    });
                return Err(ParamError {
                    help: error.help,
                    message: match rest {
                        Some(rest) => format!("{}: param `{}`: {rest}", self.name, entry.name),
                        None => format!("{}: {}", self.name, error.message),
                    },
                    source_code: NamedSource::new(&self.name, self.text.clone()),
                    span: if unknown {
                        entry.name_span
                    } else {
                        entry.value_span
                    },
                });
            }
        }
        Ok(())
    }
}
