//! A project's packs: `cairn.toml`'s `[packs]` section (trusted keys and version constraints)
//! and `cairn.lock`, the versions the constraints resolved to, each with its source, content
//! id and signer. Terraform's lock records providers only and "does not remember version
//! selections for remote modules"; Ansible has no lock at all (ansible/galaxy#1358). Here a
//! lock pins every pack a project names, and a run refuses an installed copy whose content id
//! is not the one locked.
//!
//! ```toml
//! [packs]
//! trusted_keys = ["RWSp2X3nr7OfoB8DMruxSQfBnJkxAkU/TpG3PxmstIwKYXLFU4yLpb7g"]
//! [packs.require]
//! "acme/infra" = "^1.2"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use miette::{NamedSource, SourceSpan};
use semver::{Version, VersionReq};
use serde::{Deserialize, Serialize};

use crate::{Installed, ManifestError, PackError};

/// The lock file's name, beside `cairn.toml`.
pub const LOCK_FILE: &str = "cairn.lock";

/// `cairn.toml`'s `[packs]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacksSection {
    /// Version constraints by pack name.
    #[serde(default)]
    pub require: BTreeMap<String, VersionReq>,
    /// Trusted minisign keys, the base64 line of each `minisign.pub`.
    #[serde(default)]
    pub trusted_keys: Vec<String>,
}

#[derive(Deserialize)]
struct WholeFile {
    #[serde(default)]
    packs: PacksSection,
}

impl PacksSection {
    /// The `[packs]` of the config file `path` with text `text`; other sections are the
    /// runtime's to check. An unknown key is refused at its span.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ManifestError> {
        toml::from_str::<WholeFile>(text)
            .map(|whole| whole.packs)
            .map_err(|e| ManifestError {
                help: Some("`[packs]` takes `trusted_keys` (a list) and `[packs.require]` (pack name = version range)".into()),
                message: e.message().trim_end().to_owned(),
                source_code: NamedSource::new(path.display().to_string(), text.to_owned()),
                span: e.span().map(|r| SourceSpan::new(r.start.into(), r.end - r.start)),
            })
    }
}

/// One pinned pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Locked {
    /// Its content id.
    pub content_id: String,
    /// `namespace/name`.
    pub name: String,
    /// The signer's key, or `unsigned`.
    pub signer: String,
    /// Where it was installed from.
    pub source: String,
    /// The version.
    pub version: Version,
}

/// `cairn.lock`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// The pinned packs, by name.
    #[serde(default, rename = "pack")]
    pub packs: Vec<Locked>,
}

impl Lock {
    /// The lock beside the project file `project`, if there is one.
    pub fn read(project: &Path) -> Result<Option<Self>, PackError> {
        let path = lock_path(project);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(other(format!("{}: {e}", path.display()))),
        };
        toml::from_str(&text).map(Some).map_err(|e| {
            PackError::Manifest(ManifestError {
                help: Some(format!("`cairn recipes lock` writes {LOCK_FILE} again")),
                message: e.message().trim_end().to_owned(),
                source_code: NamedSource::new(path.display().to_string(), text.clone()),
                span: e
                    .span()
                    .map(|r| SourceSpan::new(r.start.into(), r.end - r.start)),
            })
        })
    }

    /// The lock's text.
    pub fn to_text(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# {LOCK_FILE}: the pack versions cairn.toml's [packs.require] resolved to; written by\n# `cairn recipes lock`, meant to be committed.\n\n{body}"
        )
    }

    /// Resolves `require` to the newest installed version of each pack that matches.
    pub fn resolve(
        require: &BTreeMap<String, VersionReq>,
        installed: &[Installed],
    ) -> Result<Self, PackError> {
        let mut packs = Vec::new();
        for (name, range) in require {
            let versions: Vec<&Installed> = installed
                .iter()
                .filter(|i| i.pack.manifest.name == *name)
                .collect();
            let Some(best) = versions
                .iter()
                .filter(|i| range.matches(&i.pack.manifest.version))
                .max_by(|a, b| a.pack.manifest.version.cmp(&b.pack.manifest.version))
            else {
                let have: Vec<String> = versions
                    .iter()
                    .map(|i| i.pack.manifest.version.to_string())
                    .collect();
                return Err(PackError::Other {
                    help: Some("`cairn recipes install FILE` installs a version".into()),
                    message: format!(
                        "no installed version of {name} matches `{range}` (installed: {})",
                        if have.is_empty() {
                            "none".to_owned()
                        } else {
                            have.join(", ")
                        }
                    ),
                });
            };
            packs.push(Locked {
                content_id: best.record.content_id.clone(),
                name: name.clone(),
                signer: best.record.signer.clone(),
                source: best.record.source.clone(),
                version: best.pack.manifest.version.clone(),
            });
        }
        Ok(Self { packs })
    }
}

/// `cairn.lock` beside the project file.
pub fn lock_path(project: &Path) -> PathBuf {
    project.with_file_name(LOCK_FILE)
}

fn other(message: String) -> PackError {
    PackError::Other {
        help: None,
        message,
    }
}

/// The installed packs a run sees: with a lock, exactly the locked versions (each installed
/// copy's files must still hash to the locked content id); else per pack the newest version
/// that `require` allows.
pub fn visible(
    installed: Vec<Installed>,
    lock: Option<&Lock>,
    require: &BTreeMap<String, VersionReq>,
) -> Result<Vec<Installed>, PackError> {
    if let Some(lock) = lock {
        let mut packs = Vec::new();
        for locked in &lock.packs {
            let Some(found) = installed.iter().find(|i| {
                i.pack.manifest.name == locked.name && i.pack.manifest.version == locked.version
            }) else {
                return Err(PackError::Other {
                    help: Some(format!("install it from {}", locked.source)),
                    message: format!(
                        "{LOCK_FILE} pins {} {}, which is not installed",
                        locked.name, locked.version
                    ),
                });
            };
            let id = found.pack.content_id();
            if id != locked.content_id {
                return Err(PackError::Other {
                    help: Some("`cairn recipes verify` names the changed file".into()),
                    message: format!(
                        "{LOCK_FILE} pins {} {} with content id {}, and the installed copy ({}) hashes to {id}",
                        locked.name, locked.version, locked.content_id, found.pack.origin
                    ),
                });
            }
            packs.push(found.clone());
        }
        return Ok(packs);
    }
    let mut newest: BTreeMap<String, Installed> = BTreeMap::new();
    for each in installed {
        let manifest = &each.pack.manifest;
        if require
            .get(&manifest.name)
            .is_some_and(|range| !range.matches(&manifest.version))
        {
            continue;
        }
        let newer = newest
            .get(&manifest.name)
            .is_none_or(|have| have.pack.manifest.version < manifest.version);
        if newer {
            newest.insert(manifest.name.clone(), each);
        }
    }
    Ok(newest.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packs_section_reads_keys_and_ranges_and_refuses_a_typo_at_its_span() {
        let text = "[defaults]\nforks = 2\n[packs]\ntrusted_keys = [\"K\"]\n[packs.require]\n\"acme/infra\" = \"^1.2\"\n";
        let section =
            PacksSection::parse(Path::new("cairn.toml"), text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(section.trusted_keys, ["K"]);
        assert!(section.require["acme/infra"].matches(&Version::new(1, 4, 0)));
        let typo = text.replace("trusted_keys", "trusted_key");
        let Err(error) = PacksSection::parse(Path::new("cairn.toml"), &typo) else {
            panic!("a typo was taken");
        };
        assert!(
            error.message.contains("unknown field `trusted_key`"),
            "{}",
            error.message
        );
        let span = error.span.unwrap_or_else(|| panic!("no span"));
        assert_eq!(
            &typo[span.offset()..span.offset() + span.len()],
            "trusted_key"
        );
    }
}
