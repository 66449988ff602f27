//! The inventory file as TOML says it, with spans, before ranges, groups and vars are resolved.

use std::collections::BTreeMap;

use toml::Spanned;

/// Tables of named entries (`[groups.NAME]`, `[hosts."PATTERN"]`), in file order.
pub(crate) type Entries<T> = Vec<(Spanned<String>, Spanned<T>)>;

/// The whole file.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawInventory {
    #[serde(default, deserialize_with = "in_file_order")]
    pub(crate) groups: Entries<RawGroup>,
    #[serde(default, deserialize_with = "in_file_order")]
    pub(crate) hosts: Entries<RawHost>,
    #[serde(default)]
    pub(crate) vars: BTreeMap<String, toml::Value>,
}

/// `[groups.NAME]`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawGroup {
    #[serde(default)]
    pub(crate) children: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) vars: BTreeMap<String, toml::Value>,
}

/// `[hosts."PATTERN"]`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawHost {
    pub(crate) address: Option<Spanned<String>>,
    #[serde(default)]
    pub(crate) groups: Vec<Spanned<String>>,
    #[serde(default)]
    pub(crate) vars: BTreeMap<String, toml::Value>,
}

/// A TOML table read with its keys' spans, sorted by where each key is written.
fn in_file_order<'de, D, T>(deserializer: D) -> Result<Entries<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    let table: BTreeMap<Spanned<String>, Spanned<T>> =
        serde::Deserialize::deserialize(deserializer)?;
    let mut entries: Entries<T> = table.into_iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    Ok(entries)
}
