//! One config file read: its `[defaults]` settings, each with where it is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::{ConfigError, SECTIONS};

/// A file's sections with their names' spans, and `[defaults]` with its keys' and values'.
#[derive(Debug, serde::Deserialize)]
struct RawSections {
    #[serde(default)]
    defaults: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
}

/// One option's default as a file writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Setting {
    /// The option, spelt as on the command line without `--` (`max-unavailable`).
    pub(crate) key: String,
    /// Its line in the file (1-based).
    pub(crate) line: usize,
    /// Where its value is written in the file, for a diagnostic about the value.
    pub(crate) span: std::ops::Range<usize>,
    /// The value as the command line would take it (`25%`, `8`, `runbooks/lab.toml`).
    pub(crate) value: String,
}

/// One file and its settings.
#[derive(Debug, Clone)]
pub(crate) struct ConfigFile {
    /// The file.
    pub(crate) path: PathBuf,
    /// Its `[defaults]`, in file order.
    pub(crate) settings: Vec<Setting>,
    /// Its text, for diagnostics.
    pub(crate) text: String,
}

impl ConfigFile {
    /// Reads `path`, refusing a section not in [`SECTIONS`] and a `[defaults]` key not in
    /// `keys`, with a did-you-mean at the key.
    pub(crate) fn read(path: &Path, keys: &[&str]) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let mut file = Self {
            path: path.to_owned(),
            settings: Vec::new(),
            text,
        };
        let sections: BTreeMap<Spanned<String>, toml::Value> =
            toml::from_str(&file.text).map_err(|e| file.syntax(&e))?;
        for name in sections.keys() {
            file.known(name, SECTIONS, "section")?;
        }
        let raw: RawSections = toml::from_str(&file.text).map_err(|e| file.syntax(&e))?;
        let mut defaults: Vec<_> = raw.defaults.into_iter().collect();
        defaults.sort_by_key(|(key, _)| key.span().start);
        for (key, value) in defaults {
            file.known(&key, keys, "key in [defaults]")?;
            let span = value.span();
            let value = match value.into_inner() {
                toml::Value::String(text) => text,
                toml::Value::Integer(n) => n.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                _ => {
                    return Err(file.bad_value(
                        span,
                        format!("`{}` takes a string or a number", key.get_ref()),
                    ));
                }
            };
            file.settings.push(Setting {
                line: file.text[..span.start].matches('\n').count() + 1,
                key: key.into_inner(),
                span,
                value,
            });
        }
        Ok(file)
    }

    /// This file's setting of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.key == key)
    }

    /// A diagnostic at `setting`'s value: the option refused it (`--forks 0`).
    pub(crate) fn refused(&self, setting: &Setting, reason: String) -> ConfigError {
        self.bad_value(setting.span.clone(), reason)
    }

    fn bad_value(&self, span: std::ops::Range<usize>, reason: String) -> ConfigError {
        ConfigError::BadValue {
            reason,
            src: self.source(),
            span: span.into(),
        }
    }

    /// Refuses `name` unless it is one of `allowed`.
    fn known(
        &self,
        name: &Spanned<String>,
        allowed: &[&str],
        what: &str,
    ) -> Result<(), ConfigError> {
        if allowed.contains(&name.get_ref().as_str()) {
            return Ok(());
        }
        let list = allowed.join(", ");
        let help = match cairn_runtime::inventory::closest(name.get_ref(), allowed.iter().copied())
        {
            Some(near) => format!("did you mean `{near}`? known: {list}"),
            None => format!("known: {list}"),
        };
        Err(ConfigError::Unknown {
            help,
            name: name.get_ref().clone(),
            src: self.source(),
            span: name.span().into(),
            what: what.to_owned(),
        })
    }

    fn syntax(&self, error: &toml::de::Error) -> ConfigError {
        let (message, span) = cairn_runtime::source_fold::toml_message(error);
        ConfigError::Syntax {
            message,
            src: self.source(),
            span,
        }
    }

    fn source(&self) -> miette::NamedSource<cairn_runtime::source_fold::LongLines> {
        cairn_runtime::source_fold::toml_source(self.path.display().to_string(), &self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ConfigFile, ConfigError> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("cairn.toml");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        ConfigFile::read(&path, &["forks", "max-unavailable", "inventory"])
    }

    #[test]
    fn values_read_as_the_command_line_takes_them_in_file_order() {
        let file = read("[defaults]\nmax-unavailable = \"25%\"\nforks = 8\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<(&str, &str, usize)> = file
            .settings
            .iter()
            .map(|s| (s.key.as_str(), s.value.as_str(), s.line))
            .collect();
        assert_eq!(got, [("max-unavailable", "25%", 2), ("forks", "8", 3)]);
    }

    #[test]
    fn an_unknown_key_or_section_is_refused_at_its_span_with_did_you_mean() {
        let text = "[defaults]\nforsk = 8\n";
        let Err(ConfigError::Unknown {
            name, help, span, ..
        }) = read(text)
        else {
            panic!("forsk accepted");
        };
        assert_eq!(name, "forsk");
        assert!(help.starts_with("did you mean `forks`?"), "{help}");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "forsk");
        let Err(ConfigError::Unknown { name, help, .. }) = read("[defualts]\nforks = 8\n") else {
            panic!("[defualts] accepted");
        };
        assert_eq!(name, "defualts");
        assert!(help.contains("did you mean `defaults`?"), "{help}");
    }

    #[test]
    fn a_table_where_a_value_belongs_is_refused_at_the_value() {
        let text = "[defaults]\nforks = [1, 2]\n";
        let Err(ConfigError::BadValue { reason, span, .. }) = read(text) else {
            panic!("a list accepted");
        };
        assert!(
            reason.contains("`forks` takes a string or a number"),
            "{reason}"
        );
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "[1, 2]");
    }
}
