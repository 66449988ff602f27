//! The pack a runbook belongs to, read here so that the runtime, which keeps the pin in
//! `run.json` (`cairn_runtime::PackPin`), links no pack format.

use std::path::Path;

use cairn_runtime::PackPin;

/// The pack whose folder holds `runbook` (the nearest `cairn-pack.toml` above it); none for a
/// runbook in no pack or a pack that does not read.
pub(crate) fn pack_of_runbook(runbook: &Path) -> Option<PackPin> {
    let runbook = std::path::absolute(runbook).ok()?;
    let root = runbook
        .parent()?
        .ancestors()
        .find(|dir| dir.join(cairn_packs::MANIFEST).is_file())?;
    let pack = cairn_packs::Pack::read_dir(root).ok()?;
    Some(PackPin {
        content_id: pack.content_id(),
        files: root.to_path_buf(),
        name: pack.manifest.name.clone(),
        version: pack.manifest.version.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runbook_of_the_shipped_pack_names_it_and_a_loose_one_names_none() {
        let runbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runbooks/vma-latency.rhai");
        let pin = pack_of_runbook(&runbook).unwrap_or_else(|| panic!("no pack"));
        assert_eq!(
            (pin.name.as_str(), pin.version.as_str()),
            ("cairn/connectx", "0.1.0")
        );
        assert!(pin.content_id.starts_with("h1:"), "{pin:?}");
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pack_of_runbook(&dir.path().join("loose.rhai")), None);
    }
}
