//! What the run ran: the effective params (the ones given on the command line, the rest the
//! values of the runbook's defaults; secrets `<redacted>`), the runbook's and
//! the inventory's paths and SHA-256, and the cairn that wrote the page.

use std::path::Path;

use cairn_runtime::{RecipeDoc, Runbook, build_engine};

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
        (Some(text), Some(true) | None) => match declarations(&meta.runbook, text) {
            Some(declared) => (declared, None),
            None => (
                Vec::new(),
                Some("the runbook does not compile now, so its defaults are not shown".into()),
            ),
        },
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

/// The runbook's params, each with its default as `cairn recipes show` reads it: the value a
/// literal takes, a `one_of(...)`'s default, `<redacted>` for a secret, and for a default
/// computed when the run starts, that; `None` when the runbook does not compile.
fn declarations(path: &Path, text: &str) -> Option<Vec<(String, String)>> {
    let runbook = Runbook::from_text(path, text.to_owned());
    let engine = build_engine(&runbook.imports(), &[], u64::MAX);
    let ast = runbook.compile(&engine).ok()?;
    let params = RecipeDoc::of(&ast, text).params.into_iter().map(|param| {
        let value = match (param.secret, param.default) {
            (true, _) => "<redacted>".to_owned(),
            // rhai writes a string default quoted.
            (false, Some(default)) => serde_json::from_str::<String>(&default).unwrap_or(default),
            (false, None) => "(computed when the run starts)".to_owned(),
        };
        (param.name, value)
    });
    Some(params.collect())
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
    fn params_give_their_default_values_and_a_secret_stays_hidden() {
        let text = "param rolling = 1;\n  param roce_mtu = 9000;   // the guide's\nparam vib = \"/vmfs/a.vib\";\nparam token = secret(\"x\");\nparam source = one_of(\"mlnx_ofed\", [\"mlnx_ofed\", \"doca\"]);\nlet param_like = 2;\n";
        assert_eq!(
            declarations(Path::new("book.rhai"), text),
            Some(vec![
                ("rolling".to_owned(), "1".to_owned()),
                ("roce_mtu".to_owned(), "9000".to_owned()),
                ("vib".to_owned(), "/vmfs/a.vib".to_owned()),
                ("token".to_owned(), "<redacted>".to_owned()),
                ("source".to_owned(), "mlnx_ofed".to_owned()),
            ])
        );
        assert_eq!(declarations(Path::new("book.rhai"), "param = ;"), None);
    }

    #[test]
    fn the_hash_is_the_one_the_journal_header_holds() {
        assert_eq!(
            cairn_runtime::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
