//! Replacing a file by another without freeing either's inode: `renameat2(RENAME_EXCHANGE)`.

use std::io;
use std::path::Path;

/// Puts `new` in place of `old` atomically. When both exist (Linux, a file system that
/// supports it: ext4, xfs, btrfs, tmpfs), they trade places and `new`'s path then holds what
/// `old` held; otherwise `new` is renamed over `old`.
pub(crate) fn replace(new: &Path, old: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, new, CWD, old, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            // `old` does not exist yet (the first save), or the file system cannot exchange.
            Err(rustix::io::Errno::NOENT | rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
            }
            Err(other) => return Err(other.into()),
        }
    }
    std::fs::rename(new, old)
}

#[cfg(test)]
mod tests {
    use super::replace;

    #[test]
    fn the_new_file_takes_the_old_ones_place_and_the_first_time_is_a_rename() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (new, old) = (
            dir.path().join("state.json.tmp"),
            dir.path().join("state.json"),
        );
        std::fs::write(&new, "one").unwrap_or_else(|e| panic!("{e}"));
        replace(&new, &old).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read_to_string(&old).ok().as_deref(), Some("one"));
        assert!(!new.exists(), "the first replace is a rename");
        std::fs::write(&new, "two").unwrap_or_else(|e| panic!("{e}"));
        replace(&new, &old).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read_to_string(&old).ok().as_deref(), Some("two"));
        if cfg!(target_os = "linux") {
            // Exchanged: the old state is the next save's temporary file, no file was freed.
            assert_eq!(std::fs::read_to_string(&new).ok().as_deref(), Some("one"));
        }
    }
}
