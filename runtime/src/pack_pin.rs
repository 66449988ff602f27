//! The pack a run's runbook belongs to, kept in run.json: its name, version and content id,
//! and the folder of its files. A named recipe runs from an unchanging copy of its pack (named
//! by its content id, under the state folder's `packs/`), so a resume after the pack or cairn
//! was upgraded runs the files the run started with, and run.json says which they are.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A run's pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackPin {
    /// The content id of the pack's files (`h1:`, Go's directory hash).
    pub content_id: String,
    /// The folder of the pack's files the run loads.
    pub files: PathBuf,
    /// `namespace/name`.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl PackPin {
    /// The pack whose folder holds `runbook` (the nearest `cairn-pack.toml` above it); none
    /// for a runbook in no pack or a pack that does not read.
    pub fn of_runbook(runbook: &Path) -> Option<Self> {
        let root = runbook
            .parent()?
            .ancestors()
            .find(|dir| dir.join(cairn_packs::MANIFEST).is_file())?;
        let pack = cairn_packs::Pack::read_dir(root).ok()?;
        Some(Self {
            content_id: pack.content_id(),
            files: root.to_path_buf(),
            name: pack.manifest.name.clone(),
            version: pack.manifest.version.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runbook_of_the_shipped_pack_names_it_and_a_loose_one_names_none() {
        let runbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runbooks/vma-latency.rhai");
        let pin = PackPin::of_runbook(&runbook).unwrap_or_else(|| panic!("no pack"));
        assert_eq!(
            (pin.name.as_str(), pin.version.as_str()),
            ("cairn/connectx", "0.1.0")
        );
        assert!(pin.content_id.starts_with("h1:"), "{pin:?}");
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(PackPin::of_runbook(&dir.path().join("loose.rhai")), None);
    }
}
