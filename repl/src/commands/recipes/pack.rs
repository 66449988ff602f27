//! `cairn recipes pack DIR -o FILE`: the folder's `FILES` list written (or found current), then
//! the folder as a `.cairnpack` archive with `FILES` and its signature.

use std::path::Path;

use cairn_packs::{FILES, Pack, SIGNATURE, check_listing, check_signed_for, expected_comment};

pub(super) fn pack(dir: &Path, output: &Path) -> miette::Result<()> {
    let mut pack = Pack::read_dir(dir)?;
    let origin = dir.display().to_string();
    let current = pack.files.files_list();
    let name = pack.manifest.name.clone();
    let version = pack.manifest.version.clone();
    if pack.files.listed.as_deref() != Some(current.as_str()) {
        if pack.files.signature.is_some() {
            // Name what changed since FILES was signed.
            let changed = check_listing(&pack.files, &origin).err();
            return Err(miette::miette!(
                help = format!(
                    "remove {SIGNATURE}, pack again to write FILES, then sign it: minisign -S -m {}/{FILES} -t \"{}\"",
                    dir.display(),
                    expected_comment(&name, &version)
                ),
                "{}/{SIGNATURE} signs an older {FILES}: {}",
                dir.display(),
                changed.map_or_else(|| "it is not in its one form".to_owned(), |e| e.to_string())
            ));
        }
        let path = dir.join(FILES);
        std::fs::write(&path, &current)
            .map_err(|e| miette::miette!("cannot write {}: {e}", path.display()))?;
        say!("wrote {}", path.display());
        pack.files.listed = Some(current);
    }
    if let Some(signature) = &pack.files.signature {
        check_signed_for(signature, &name, &version, &origin)?;
    }
    let bytes = cairn_packs::archive::write(&pack.files)
        .map_err(|e| miette::miette!("cannot build the archive: {e}"))?;
    std::fs::write(output, bytes)
        .map_err(|e| miette::miette!("cannot write {}: {e}", output.display()))?;
    say!(
        "packed {name} {version} ({} files, {}, {}) into {}",
        pack.files.files.len(),
        pack.content_id(),
        if pack.files.signature.is_some() {
            "signed"
        } else {
            "unsigned"
        },
        output.display()
    );
    Ok(())
}
