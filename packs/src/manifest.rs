//! `cairn-pack.toml`: what a pack is (a namespaced name, a SemVer version, the cairn versions
//! it runs on, its recipes and their labs, a summary and a licence). Unknown keys are refused
//! at their span, as Cargo refuses them in `Cargo.toml`.

use std::collections::BTreeMap;

use miette::{Diagnostic, NamedSource, SourceSpan};
use semver::{Version, VersionReq};
use serde::Deserialize;

/// The manifest's file name, at the pack's root.
pub const MANIFEST: &str = "cairn-pack.toml";

/// A pack's manifest.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The cairn versions whose builtins the pack's recipes need (`">=0.1, <0.3"`).
    pub cairn: VersionReq,
    /// Its licence, an SPDX expression.
    pub license: String,
    /// `namespace/name`, lowercase letters, digits and `-` (`nvidia/connectx`).
    pub name: String,
    /// Its recipes by name.
    pub recipes: BTreeMap<String, RecipeEntry>,
    /// One line about it.
    pub summary: String,
    /// Its version (SemVer 2.0).
    pub version: Version,
}

/// One recipe of a pack.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecipeEntry {
    /// The runbook, relative to the pack's root.
    pub file: String,
    /// Its simulated lab (an inventory), relative to the pack's root.
    pub lab: Option<String>,
}

/// A manifest that does not parse or says something impossible.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(cairn::packs::manifest))]
pub struct ManifestError {
    /// A hint for fixing it.
    #[help]
    pub help: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The manifest.
    #[source_code]
    pub source_code: NamedSource<String>,
    /// Where.
    #[label("here")]
    pub span: Option<SourceSpan>,
}

impl Manifest {
    /// Parses the manifest text of the file `name`, refusing unknown keys and bad names.
    pub fn parse(name: &str, text: &str) -> Result<Self, ManifestError> {
        let error = |message: String, span: Option<std::ops::Range<usize>>, help| ManifestError {
            help,
            message,
            source_code: NamedSource::new(name, text.to_owned()),
            span: span.map(|r| SourceSpan::new(r.start.into(), r.end - r.start)),
        };
        let manifest: Self =
            toml::from_str(text).map_err(|e| error(e.message().to_owned(), e.span(), None))?;
        if !valid_name(&manifest.name) {
            let span = value_span(text, "name");
            let help = Some("a pack is named `namespace/name`: lowercase letters, digits and `-`, as `nvidia/connectx`".into());
            return Err(error(
                format!("`{}` is no pack name", manifest.name),
                span,
                help,
            ));
        }
        for (recipe, entry) in &manifest.recipes {
            for file in std::iter::once(&entry.file).chain(&entry.lab) {
                if !crate::files::valid_path(file) {
                    let help =
                        Some("a path inside the pack, with `/` between folders, no `..`".into());
                    let message = format!("recipe `{recipe}`: `{file}` is no path inside the pack");
                    return Err(error(message, value_span(text, file), help));
                }
            }
        }
        Ok(manifest)
    }

    /// Refuses a cairn `version` outside the range `cairn` of the manifest text `text` (named
    /// `name`), pointing at the range.
    pub fn check_cairn(
        &self,
        name: &str,
        text: &str,
        version: &Version,
    ) -> Result<(), ManifestError> {
        if self.cairn.matches(version) {
            return Ok(());
        }
        let span = key_value_span(text, "cairn");
        Err(ManifestError {
            help: Some(format!(
                "this is cairn {version}; install a cairn the pack supports, or a version of the pack made for this one"
            )),
            message: format!(
                "{} {} needs cairn {}, and this is cairn {version}",
                self.name, self.version, self.cairn
            ),
            source_code: NamedSource::new(name, text.to_owned()),
            span: span.map(|r| SourceSpan::new(r.start.into(), r.end - r.start)),
        })
    }

    /// The recipe whose file is `file`, if the manifest lists one.
    pub fn recipe_of_file(&self, file: &str) -> Option<&str> {
        self.recipes
            .iter()
            .find(|(_, entry)| entry.file == file)
            .map(|(name, _)| name.as_str())
    }
}

/// `namespace/name` with lowercase letters, digits and `-` in each part.
fn valid_name(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('-')
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    };
    matches!(name.split_once('/'), Some((ns, pack)) if part(ns) && part(pack))
}

/// The span of the value of the top-level line `key = value`.
fn key_value_span(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let Some(rest) = line.strip_prefix(key) else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value.trim();
        let offset = start + line.find(value).unwrap_or(0);
        return Some(offset..offset + value.len());
    }
    None
}

/// The span of the first quoted `needle` in `text` (a value to point at after parsing).
fn value_span(text: &str, needle: &str) -> Option<std::ops::Range<usize>> {
    let quoted = format!("\"{needle}\"");
    text.find(&quoted)
        .map(|at| at..at + quoted.len())
        .or_else(|| text.find(needle).map(|at| at..at + needle.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "nvidia/connectx"
version = "1.2.0"
cairn = ">=0.1"
summary = "ConnectX"
license = "Apache-2.0"

[recipes.vma-latency]
file = "vma-latency.rhai"
lab = "labs/vma-2node.toml"
"#;

    #[test]
    fn a_manifest_reads_its_name_version_range_and_recipes() {
        let manifest = Manifest::parse("cairn-pack.toml", GOOD).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(manifest.name, "nvidia/connectx");
        assert_eq!(manifest.version, Version::new(1, 2, 0));
        assert!(manifest.cairn.matches(&Version::new(0, 1, 0)));
        assert_eq!(
            manifest.recipe_of_file("vma-latency.rhai"),
            Some("vma-latency")
        );
    }

    #[test]
    fn an_unknown_key_is_refused_at_its_span() {
        let text = GOOD.replace("license =", "licence =");
        let Err(error) = Manifest::parse("cairn-pack.toml", &text) else {
            panic!("an unknown key parsed");
        };
        assert!(
            error.message.contains("unknown field `licence`"),
            "{}",
            error.message
        );
        let span = error.span.unwrap_or_else(|| panic!("no span"));
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "licence");
    }

    #[test]
    fn a_name_without_namespace_and_a_path_out_of_the_pack_are_refused() {
        let text = GOOD.replace("nvidia/connectx", "connectx");
        assert!(Manifest::parse("m", &text).is_err_and(|e| e.message.contains("no pack name")));
        let text = GOOD.replace("labs/vma-2node.toml", "../vma.toml");
        assert!(Manifest::parse("m", &text).is_err_and(|e| e.message.contains("no path inside")));
        let text = GOOD.replace("1.2.0", "1.2");
        assert!(Manifest::parse("m", &text).is_err());
    }
}
