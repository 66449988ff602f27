//! Naming a recipe: `namespace/pack:recipe`, or a bare name that exactly one pack's recipe
//! has. Two packs with the recipe are refused, both listed with where they came from: never a
//! silent pick (a bundled copy shadowing an installed one confused Ansible's and Bolt's users).

use std::path::{Path, PathBuf};

use crate::{Pack, PackError};

/// A recipe of a pack.
#[derive(Debug, Clone, Copy)]
pub struct RecipeRef<'a> {
    /// The pack.
    pub pack: &'a Pack,
    /// The recipe's name in it.
    pub recipe: &'a str,
}

impl RecipeRef<'_> {
    /// The recipe's runbook, relative to the pack's root.
    pub fn file(&self) -> &str {
        self.pack
            .manifest
            .recipes
            .get(self.recipe)
            .map_or("", |entry| entry.file.as_str())
    }

    /// `namespace/pack:recipe`.
    pub fn full_name(&self) -> String {
        format!("{}:{}", self.pack.name(), self.recipe)
    }
}

/// The recipe `reference` names among `packs`.
pub fn find<'a>(packs: &'a [Pack], reference: &str) -> Result<RecipeRef<'a>, PackError> {
    let (pack_name, recipe) = match reference.split_once(':') {
        Some((pack, recipe)) => (Some(pack), recipe),
        None => (None, reference),
    };
    let found: Vec<RecipeRef> = packs
        .iter()
        .filter(|pack| pack_name.is_none_or(|name| pack.name() == name))
        .filter_map(|pack| {
            let (name, _) = pack.manifest.recipes.get_key_value(recipe)?;
            Some(RecipeRef { pack, recipe: name })
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(PackError::Other {
            help: Some(format!("the recipes: {}", every_recipe(packs).join(", "))),
            message: format!("no recipe `{reference}`"),
        }),
        many => Err(PackError::Other {
            help: Some("name it with its pack: `namespace/pack:recipe`".into()),
            message: format!(
                "`{reference}` is a recipe of {} packs: {}",
                many.len(),
                many.iter()
                    .map(|r| format!(
                        "{} {} ({})",
                        r.full_name(),
                        r.pack.manifest.version,
                        r.pack.origin
                    ))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }),
    }
}

/// The runbook a run of `runbook` loads: the file itself when there is one; else the recipe it
/// names among `packs`, whose pack is written once under `dir` (a folder named by its content
/// id, never changed after, so a resume runs what the run started with).
pub fn runbook_file(runbook: &Path, packs: &[Pack], dir: &Path) -> Result<PathBuf, PackError> {
    let looks_like_a_file = runbook.extension().is_some_and(|e| e == "rhai");
    let Some(reference) = runbook
        .to_str()
        .filter(|_| !runbook.is_file() && !looks_like_a_file)
    else {
        return Ok(runbook.to_path_buf());
    };
    let found = find(packs, reference)?;
    let folder = found.pack.materialize(dir).map_err(|e| PackError::Other {
        help: None,
        message: format!(
            "cannot write the pack {} under {}: {e}",
            found.pack.name(),
            dir.display()
        ),
    })?;
    Ok(folder.join(found.file()))
}

/// Every recipe as `namespace/pack:recipe`.
pub fn every_recipe(packs: &[Pack]) -> Vec<String> {
    packs
        .iter()
        .flat_map(|pack| {
            pack.manifest
                .recipes
                .keys()
                .map(|r| format!("{}:{r}", pack.name()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileSet, Origin};

    fn pack(name: &str, dir: &str) -> Pack {
        let manifest = format!(
            "name = \"{name}\"\nversion = \"1.0.0\"\ncairn = \"*\"\nsummary = \"s\"\nlicense = \"MIT\"\n[recipes.check]\nfile = \"check.rhai\"\n"
        );
        let files = FileSet::from_entries([
            ("cairn-pack.toml".to_owned(), manifest.into_bytes()),
            ("check.rhai".to_owned(), Vec::new()),
        ]);
        Pack::new(files, Origin::Folder(dir.into())).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_bare_name_two_packs_have_is_refused_listing_both() {
        let packs = [pack("acme/a", "/packs/a"), pack("acme/b", "/packs/b")];
        let Err(error) = find(&packs, "check") else {
            panic!("two matches were picked");
        };
        let text = error.to_string();
        assert!(text.contains("acme/a:check 1.0.0 (/packs/a)"), "{text}");
        assert!(text.contains("acme/b:check 1.0.0 (/packs/b)"), "{text}");
        let one = find(&packs, "acme/b:check").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(one.pack.name(), "acme/b");
        assert!(find(&packs, "acme/c:check").is_err());
    }
}
