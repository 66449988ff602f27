//! Files only the operator may read: the state folder holds journals and simulated hosts that
//! can carry what a runbook did with a secret, so folders are `0700` and files `0600`.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::Write;
use std::path::Path;

#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};

/// Creates `path` and any missing parents, each created one `0700`.
pub fn create_dir_all(path: &Path) -> std::io::Result<()> {
    builder(true).create(path)
}

/// Creates the one folder `path`, `0700`; fails if it exists, so creating it is a claim.
pub(crate) fn create_dir(path: &Path) -> std::io::Result<()> {
    builder(false).create(path)
}

fn builder(recursive: bool) -> DirBuilder {
    let mut builder = DirBuilder::new();
    builder.recursive(recursive);
    #[cfg(unix)]
    builder.mode(0o700);
    builder
}

/// Options that create a missing file `0600`.
pub(crate) fn options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    options.mode(0o600);
    options
}

/// Replaces `path` with `bytes` so that a reader sees the old file or the new one, never a
/// part: a `0600` temporary beside it, fsynced, renamed over it, and the folder fsynced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(name);
    let written = options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Fsyncs a folder, so a rename or a new file in it survives a crash.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)?.sync_all()
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o777)
    }

    #[test]
    fn folders_and_files_are_private() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let nested = dir.path().join("a/b");
        create_dir_all(&nested)?;
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&nested), 0o700);
        assert!(create_dir(&nested).is_err(), "a second claim fails");
        let file = nested.join("f.json");
        write_atomic(&file, b"one")?;
        write_atomic(&file, b"two")?;
        assert_eq!(std::fs::read_to_string(&file)?, "two");
        assert_eq!(mode(&file), 0o600);
        assert_eq!(
            std::fs::read_dir(&nested)?.count(),
            1,
            "no temporary is left"
        );
        Ok(())
    }
}
