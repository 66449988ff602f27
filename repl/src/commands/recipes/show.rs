//! `cairn recipes show REF`: what a recipe says about itself (`runtime/src/param_docs.rs`),
//! with its lab, its pack and who signed it; `--json`, a JSON Schema of its params.

use std::collections::BTreeMap;
use std::path::Path;

use cairn_packs::{Context, Origin, Pack, find};
use cairn_runtime::{RecipeDoc, Runbook, build_engine};

/// How `show` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// For people.
    Text,
    /// A JSON Schema of the params.
    Json,
    /// The params as a Markdown table.
    Markdown,
}

impl Form {
    pub(super) fn of(json: bool, markdown: bool) -> Self {
        match (json, markdown) {
            (true, _) => Self::Json,
            (_, true) => Self::Markdown,
            _ => Self::Text,
        }
    }
}

pub(super) fn show(
    state: &Path,
    context: &Context,
    reference: &str,
    form: Form,
) -> miette::Result<()> {
    let packs = context.packs()?;
    let found = find(&packs, reference)?;
    let pack = found.pack;
    let folder = pack
        .materialize(&state.join("packs"))
        .map_err(|e| miette::miette!("cannot write the pack {}: {e}", pack.name()))?;
    let doc = doc_of(state, &folder.join(found.file()))?;
    let full = found.full_name();
    match form {
        Form::Json => {
            let schema = doc.json_schema(&full);
            say!(
                "{}",
                serde_json::to_string_pretty(&schema).unwrap_or_default()
            );
            return Ok(());
        }
        Form::Markdown => {
            use std::io::Write as _;
            let _ = std::io::stdout().write_all(doc.markdown_table().as_bytes());
            return Ok(());
        }
        Form::Text => {}
    }
    say!("{full} {}", pack.manifest.version);
    if !doc.description.is_empty() {
        say!("\n{}\n", doc.description);
    }
    let lab = pack
        .manifest
        .recipes
        .get(found.recipe)
        .and_then(|r| r.lab.as_deref());
    let inventory = if lab.is_some() {
        "lab.toml"
    } else {
        "INVENTORY"
    };
    say!("usage: cairn run {full} -i {inventory} [--param NAME=VALUE]...");
    if doc.params.is_empty() {
        say!("params: none");
    } else {
        say!("params:");
    }
    for param in &doc.params {
        let default = match (&param.default, param.secret) {
            (_, true) => "secret, no default shown".to_owned(),
            (Some(default), false) => format!("default {default}"),
            (None, false) => "computed default".to_owned(),
        };
        let choices = if param.choices.is_empty() {
            String::new()
        } else {
            format!(", one of {}", param.choices.join(" | "))
        };
        say!("  {:<20} {:<8} {default}{choices}", param.name, param.kind);
        if !param.description.is_empty() {
            say!("  {:<20} {}", "", param.description);
        }
    }
    match lab {
        Some(lab) => say!("lab: {lab} (cairn recipes lab {full} > lab.toml)"),
        None => say!("lab: none"),
    }
    say!(
        "pack: {} {} ({}) {}",
        pack.name(),
        pack.manifest.version,
        pack.origin,
        pack.content_id()
    );
    say!("signer: {}", signer(context, pack)?);
    Ok(())
}

/// Who signed `pack`: its install record's key, `built in` for the binary's own.
fn signer(context: &Context, pack: &Pack) -> miette::Result<String> {
    let Origin::Installed(dir) = &pack.origin else {
        return Ok(pack.origin.to_string());
    };
    let installed = context.installed()?;
    let record = installed
        .iter()
        .find(|i| i.pack.origin == Origin::Installed(dir.clone()));
    Ok(match record.map(|i| i.record.signer.as_str()) {
        Some("unsigned") | None => "unsigned (installed with --allow-unsigned)".to_owned(),
        Some(key) => key.to_owned(),
    })
}

/// The description and params of the runbook at `path`.
pub(super) fn doc_of(state: &Path, path: &Path) -> miette::Result<RecipeDoc> {
    let launcher = crate::assembly::launcher(state);
    let runbook = Runbook::load(path)?.with_lib_path(&launcher.lib_path);
    let engine = build_engine(&runbook.imports(), &launcher.libraries, u64::MAX);
    let ast = runbook.compile(&engine)?;
    Ok(RecipeDoc::of(&ast, &runbook.text))
}

/// Every recipe's doc of `pack`, written into `dir` to be compiled.
pub(super) fn docs_of(
    state: &Path,
    pack: &Pack,
    dir: &Path,
) -> miette::Result<BTreeMap<String, RecipeDoc>> {
    let folder = pack
        .materialize(dir)
        .map_err(|e| miette::miette!("cannot write the pack {}: {e}", pack.name()))?;
    pack.manifest
        .recipes
        .iter()
        .map(|(name, entry)| Ok((name.clone(), doc_of(state, &folder.join(&entry.file))?)))
        .collect()
}
