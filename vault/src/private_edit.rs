//! Editing a vault's plaintext without writing it to a disk: the editor gets a `0600` file in
//! a `0700` folder made for this edit on a memory file system (`$XDG_RUNTIME_DIR`, which
//! systemd mounts as tmpfs per user, else `/dev/shm`), so no disk block ever holds it. The
//! folder, and whatever the editor left in it (vim's swap file, a backup), is overwritten and
//! removed when the editor ends, whatever happened.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::VaultError;

/// `statfs(2)`'s `f_type` of the memory file systems (`TMPFS_MAGIC`, `RAMFS_MAGIC` in Linux's
/// `include/uapi/linux/magic.h`).
const MEMORY_FILE_SYSTEMS: [u64; 2] = [0x0102_1994, 0x8584_58f6];

/// What the editor (`$VISUAL`, else `$EDITOR`, else `vi`) left of `text`.
pub(crate) fn edit(text: &str) -> Result<String, VaultError> {
    let base = memory_folder()?;
    let folder = tempfile::Builder::new()
        .prefix("cairn-vault-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(&base)
        .map_err(|e| VaultError::io("create a folder in", &base, e))?;
    let file = folder.path().join("secrets.toml");
    let edited = write_new(&file, text.as_bytes())
        .map_err(|e| VaultError::io("write", &file, e))
        .and_then(|()| run_editor(&file))
        .and_then(|()| {
            std::fs::read_to_string(&file).map_err(|e| VaultError::io("read", &file, e))
        });
    scrub(folder.path());
    drop(folder);
    edited
}

/// The first memory-backed folder of `$XDG_RUNTIME_DIR` and `/dev/shm`.
fn memory_folder() -> Result<PathBuf, VaultError> {
    let candidates: Vec<PathBuf> = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/dev/shm")])
        .collect();
    candidates
        .iter()
        .find(|dir| on_memory(dir))
        .cloned()
        .ok_or_else(|| {
            VaultError::Editor(format!(
                "no folder on a memory file system to edit in (tried {}): the plaintext would reach a disk",
                candidates
                    .iter()
                    .map(|d| format!("`{}`", d.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

fn on_memory(dir: &Path) -> bool {
    rustix::fs::statfs(dir).is_ok_and(|fs| {
        #[allow(clippy::unnecessary_cast, clippy::cast_sign_loss)]
        let kind = fs.f_type as u64;
        MEMORY_FILE_SYSTEMS.contains(&kind)
    })
}

fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

/// Runs the editor through `sh -c`, as git does, so `EDITOR="code --wait"` works.
fn run_editor(file: &Path) -> Result<(), VaultError> {
    let editor = ["VISUAL", "EDITOR"]
        .into_iter()
        .find_map(|name| std::env::var(name).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_owned());
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(&editor)
        .arg(file)
        .status()
        .map_err(|e| VaultError::Editor(format!("cannot run the editor `{editor}`: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(VaultError::Editor(format!(
            "the editor `{editor}` failed ({status})"
        )))
    }
}

/// Overwrites every file in `folder` with zeros before the folder is removed.
fn scrub(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if let Ok(meta) = std::fs::symlink_metadata(&path)
            && meta.is_file()
            && let Ok(mut file) = std::fs::OpenOptions::new().write(true).open(&path)
        {
            let zeros = vec![0u8; usize::try_from(meta.len()).unwrap_or(0)];
            let _ = file.write_all(&zeros);
        }
    }
}
