//! What the run ran: the effective params (the ones given on the command line, the rest the
//! runbook's defaults as its `param` lines write them; secrets `<redacted>`), the runbook's and
//! the inventory's paths and SHA-256, and the cairn that wrote the page.

use std::path::Path;

use crate::run_model::RunModel;

/// A param as the run had it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EffectiveParam {
    pub(crate) name: String,
    pub(crate) value: String,
    /// Given with `--param` (else the runbook's default).
    pub(crate) given: bool,
}

/// What the page says about the run's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Provenance {
    /// The params, in the runbook's order, then any given that it does not declare.
    pub(crate) params: Vec<EffectiveParam>,
    /// Why the defaults are not shown, when they are not.
    pub(crate) params_note: Option<String>,
    /// SHA-256 of the runbook when the run started (its journals' header).
    pub(crate) runbook_hash: Option<String>,
    /// Whether the runbook file still has that hash.
    pub(crate) runbook_unchanged: Option<bool>,
    /// SHA-256 of the inventory file now (the run does not record it).
    pub(crate) inventory_hash: Option<String>,
    /// The cairn that wrote the page.
    pub(crate) version: &'static str,
}

/// Reads the runbook and the inventory the run names, where `run.json` says they are.
pub(crate) fn provenance(model: &RunModel) -> Provenance {
    let meta = &model.meta;
    let runbook = std::fs::read_to_string(&meta.runbook).ok();
    let runbook_unchanged = match (&runbook, &model.runbook_hash) {
        (Some(text), Some(hash)) => Some(cairn_runtime::sha256_hex(text.as_bytes()) == *hash),
        _ => None,
    };
    let (declared, params_note) = match (&runbook, runbook_unchanged) {
        (Some(text), Some(true) | None) => (declarations(text), None),
        (Some(_), Some(false)) => (
            Vec::new(),
            Some("the runbook has changed since the run, so its defaults are not shown".into()),
        ),
        (None, _) => (
            Vec::new(),
            Some(format!(
                "{} cannot be read, so its defaults are not shown",
                meta.runbook.display()
            )),
        ),
    };
    let mut params: Vec<EffectiveParam> = declared
        .into_iter()
        .map(|(name, default)| match meta.params.get(&name) {
            Some(value) => EffectiveParam {
                value: value.clone(),
                name,
                given: true,
            },
            None => EffectiveParam {
                value: default,
                name,
                given: false,
            },
        })
        .collect();
    for (name, value) in &meta.params {
        if !params.iter().any(|p| &p.name == name) {
            params.push(EffectiveParam {
                name: name.clone(),
                value: value.clone(),
                given: true,
            });
        }
    }
    Provenance {
        params,
        params_note,
        runbook_hash: model.runbook_hash.clone().filter(|hash| !hash.is_empty()),
        runbook_unchanged,
        inventory_hash: file_hash(&meta.inventory),
        version: env!("CARGO_PKG_VERSION"),
    }
}

/// `param NAME = DEFAULT;` lines: each name with its default as written (the value a literal
/// default takes; a `secret(...)` default is `<redacted>`).
fn declarations(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("param ")?;
            let (name, default) = rest.split_once('=')?;
            let name = name.trim();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let default = default
                .split_once(';')
                .map_or(default, |(value, _)| value)
                .trim();
            let default = if default.starts_with("secret(") {
                "<redacted>".to_owned()
            } else {
                default.trim_matches('"').to_owned()
            };
            Some((name.to_owned(), default))
        })
        .collect()
}

fn file_hash(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| cairn_runtime::sha256_hex(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_lines_give_their_defaults_and_a_secret_stays_hidden() {
        let text = "param rolling = 1;\n  param roce_mtu = 9000;   // the guide's\nparam vib = \"/vmfs/a.vib\";\nparam token = secret(\"x\");\nlet param_like = 2;\n";
        assert_eq!(
            declarations(text),
            vec![
                ("rolling".to_owned(), "1".to_owned()),
                ("roce_mtu".to_owned(), "9000".to_owned()),
                ("vib".to_owned(), "/vmfs/a.vib".to_owned()),
                ("token".to_owned(), "<redacted>".to_owned()),
            ]
        );
    }

    #[test]
    fn the_hash_is_the_one_the_journal_header_holds() {
        assert_eq!(
            cairn_runtime::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
