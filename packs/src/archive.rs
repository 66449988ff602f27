//! The `.cairnpack` archive: a tar of the pack's files, `FILES` and `FILES.minisig` with them,
//! written the same way every time (entries sorted by path, mtime 0, uid and gid 0, mode 0644,
//! no owner names, no folder entries), so packing the same folder twice gives the same bytes.
//! Reading takes regular files only and refuses a path that is not a plain one inside the pack.

use std::io::Read as _;
use std::path::Path;

use crate::files::valid_path;
use crate::{FILES, FileSet, SIGNATURE};

/// The archive's file name ending.
pub const EXTENSION: &str = "cairnpack";

/// The largest file an archive may hold (a recipe pack is text; this stops a tar bomb).
const MAX_FILE: u64 = 64 << 20;

/// An archive that cannot be written or read.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{path}: {message}")]
#[diagnostic(code(cairn::packs::archive))]
pub struct ArchiveError {
    /// What is wrong.
    pub message: String,
    /// The archive.
    pub path: String,
}

/// The archive's bytes for `files`, with `FILES` (`listed`) and the signature if there is one.
pub fn write(files: &FileSet) -> std::io::Result<Vec<u8>> {
    let mut entries: Vec<(&str, &[u8])> = files
        .files
        .iter()
        .map(|(path, bytes)| (path.as_str(), bytes.as_slice()))
        .collect();
    if let Some(listed) = &files.listed {
        entries.push((FILES, listed.as_bytes()));
    }
    if let Some(signature) = &files.signature {
        entries.push((SIGNATURE, signature.as_bytes()));
    }
    entries.sort_by_key(|(path, _)| *path);
    let mut builder = tar::Builder::new(Vec::new());
    builder.mode(tar::HeaderMode::Deterministic);
    for (path, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        builder.append_data(&mut header, path, bytes)?;
    }
    builder.into_inner()
}

/// The files of the archive `bytes`, read from `path` (named in errors).
pub fn read(bytes: &[u8], path: &Path) -> Result<FileSet, ArchiveError> {
    let failed = |message: String| ArchiveError {
        message,
        path: path.display().to_string(),
    };
    let mut archive = tar::Archive::new(bytes);
    let mut files = Vec::new();
    let entries = archive
        .entries()
        .map_err(|e| failed(format!("not a tar archive: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| failed(format!("not a tar archive: {e}")))?;
        let name = entry
            .path()
            .map_err(|e| failed(e.to_string()))?
            .to_str()
            .map(str::to_owned)
            .ok_or_else(|| failed("a file name that is not UTF-8".into()))?;
        // `tar -C DIR -cf X .` names every entry `./PATH`.
        let name = name.strip_prefix("./").map(str::to_owned).unwrap_or(name);
        if entry.header().entry_type().is_dir() {
            continue;
        }
        if !entry.header().entry_type().is_file() {
            return Err(failed(format!(
                "`{name}` is not a regular file (a pack holds no links or devices)"
            )));
        }
        if !valid_path(&name) {
            return Err(failed(format!("`{name}` is not a path inside the pack")));
        }
        if entry.size() > MAX_FILE {
            return Err(failed(format!("`{name}` is larger than {MAX_FILE} bytes")));
        }
        let mut content = Vec::new();
        entry
            .read_to_end(&mut content)
            .map_err(|e| failed(format!("`{name}`: {e}")))?;
        if files.iter().any(|(seen, _): &(String, _)| *seen == name) {
            return Err(failed(format!("`{name}` is in the archive twice")));
        }
        files.push((name, content));
    }
    if files.is_empty() {
        return Err(failed("holds no files: not a pack".into()));
    }
    Ok(FileSet::from_entries(files))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_is_the_same_bytes_every_time_and_reads_back_the_same_files() {
        let mut set = FileSet::from_entries([
            ("lib/b.rhai".to_owned(), b"fn b() { 2 }\n".to_vec()),
            ("a.rhai".to_owned(), b"let a = 1;\n".to_vec()),
        ]);
        set.listed = Some(set.files_list());
        let once = write(&set).unwrap_or_else(|e| panic!("{e}"));
        let twice = write(&set).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(once, twice);
        let read = read(&once, Path::new("x.cairnpack")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read, set);
        assert_eq!(read.content_id(), set.content_id());
        // `tar -tvf` would show these: owner 0/0, mode rw-r--r--, 1970-01-01.
        let mut archive = tar::Archive::new(once.as_slice());
        let headers: Vec<(String, u32, u64, u64)> = archive
            .entries()
            .unwrap_or_else(|e| panic!("{e}"))
            .flatten()
            .map(|e| {
                let h = e.header();
                let path = e
                    .path()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                (
                    path,
                    h.mode().unwrap_or(0),
                    h.mtime().unwrap_or(1),
                    h.uid().unwrap_or(1),
                )
            })
            .collect();
        assert_eq!(
            headers,
            [
                ("FILES".to_owned(), 0o644, 0, 0),
                ("a.rhai".to_owned(), 0o644, 0, 0),
                ("lib/b.rhai".to_owned(), 0o644, 0, 0)
            ]
        );
    }

    #[test]
    fn a_tar_made_with_dot_paths_reads_as_the_same_files() {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, bytes) in [("./", &b""[..]), ("./a.rhai", &b"let a = 1;\n"[..])] {
            let mut header = tar::Header::new_gnu();
            let dir = path.ends_with('/');
            header.set_entry_type(if dir {
                tar::EntryType::Directory
            } else {
                tar::EntryType::Regular
            });
            header.set_size(bytes.len() as u64);
            builder
                .append_data(&mut header, path, bytes)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let bytes = builder.into_inner().unwrap_or_else(|e| panic!("{e}"));
        let read = read(&bytes, Path::new("x.cairnpack")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.files.keys().collect::<Vec<_>>(), ["a.rhai"]);
    }

    #[test]
    fn junk_is_refused_not_panicked_on() {
        let Err(error) = read(b"no tar here", Path::new("x.cairnpack")) else {
            panic!("junk read as an archive");
        };
        assert!(error.to_string().contains("x.cairnpack"), "{error}");
    }
}
