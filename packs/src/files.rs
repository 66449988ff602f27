//! A pack's files and its content id: the sha256 of its `FILES` list, one `SHA256  PATH` line
//! per file sorted by path, which is Go's `h1:` directory hash (`golang.org/x/mod`,
//! `sumdb/dirhash/hash.go`, `Hash1`) and so the same for a folder, an archive and the copy
//! embedded in the binary: only the paths and the bytes count, never dates, owners or modes.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine as _;
use sha2::{Digest, Sha256};

/// The list of the pack's files and their hashes, at the pack's root.
pub const FILES: &str = "FILES";
/// The minisign signature over `FILES`.
pub const SIGNATURE: &str = "FILES.minisig";

/// A pack's files by path (`/` between folders), `FILES` and its signature apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSet {
    /// The files, without `FILES` and `FILES.minisig`.
    pub files: BTreeMap<String, Vec<u8>>,
    /// `FILES` as the pack carries it, if it does.
    pub listed: Option<String>,
    /// `FILES.minisig`, if the pack carries one.
    pub signature: Option<String>,
}

/// Why a folder's files could not be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{path}: {message}")]
#[diagnostic(code(cairn::packs::files))]
pub struct FilesError {
    /// What is wrong.
    pub message: String,
    /// The file or folder.
    pub path: String,
}

impl FileSet {
    /// Files from `(path, bytes)` pairs, setting `FILES` and its signature apart.
    pub fn from_entries(entries: impl IntoIterator<Item = (String, Vec<u8>)>) -> Self {
        let mut set = Self::default();
        for (path, bytes) in entries {
            match path.as_str() {
                FILES => set.listed = Some(String::from_utf8_lossy(&bytes).into_owned()),
                SIGNATURE => set.signature = Some(String::from_utf8_lossy(&bytes).into_owned()),
                _ => {
                    set.files.insert(path, bytes);
                }
            }
        }
        set
    }

    /// Every regular file under `dir`; a symbolic link or a name that is no plain path is
    /// refused, so what is hashed is what a copy of the folder holds.
    pub fn read_dir(dir: &Path) -> Result<Self, FilesError> {
        let mut entries = Vec::new();
        collect(dir, "", &mut entries)?;
        Ok(Self::from_entries(entries))
    }

    /// The `FILES` text of these files: `SHA256  PATH` lines sorted by path.
    pub fn files_list(&self) -> String {
        self.files
            .iter()
            .map(|(path, bytes)| format!("{}  {path}\n", hex(&Sha256::digest(bytes))))
            .collect()
    }

    /// The content id, `h1:` and the base64 of the sha256 of the `FILES` text.
    pub fn content_id(&self) -> String {
        content_id_of(&self.files_list())
    }

    /// A file's text, if it is there and UTF-8.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files
            .get(path)
            .and_then(|b| std::str::from_utf8(b).ok())
    }
}

/// The content id of a `FILES` text.
pub fn content_id_of(files_list: &str) -> String {
    let digest = Sha256::digest(files_list.as_bytes());
    format!(
        "h1:{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A relative path of plain names with `/` between them: no `..`, no `.`, no empty part, no
/// leading `/`, no newline (a `FILES` line ends at one).
pub fn valid_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('/').all(|part| {
            !part.is_empty() && part != "." && part != ".." && !part.contains(['\n', '\\'])
        })
}

fn collect(dir: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), FilesError> {
    let failed = |path: &Path, message: String| FilesError {
        message,
        path: path.display().to_string(),
    };
    let entries = std::fs::read_dir(dir).map_err(|e| failed(dir, e.to_string()))?;
    for entry in entries {
        let entry = entry.map_err(|e| failed(dir, e.to_string()))?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            return Err(failed(&path, "a file name that is not UTF-8".into()));
        };
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if !valid_path(&relative) {
            return Err(failed(
                &path,
                "a name that cannot be listed in FILES".into(),
            ));
        }
        let kind = entry
            .file_type()
            .map_err(|e| failed(&path, e.to_string()))?;
        if kind.is_dir() {
            collect(&path, &relative, out)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(&path).map_err(|e| failed(&path, e.to_string()))?;
            out.push((relative, bytes));
        } else {
            return Err(failed(
                &path,
                "neither a file nor a folder (a pack holds no links)".into(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_content_id_is_go_s_h1_hash_of_the_sorted_list() {
        // `printf 'hello\n' > a; printf 'x' > b/c` then, as Hash1 does,
        // `sha256sum a b/c | sha256sum | xxd -r -p | base64`.
        let set = FileSet::from_entries([
            ("b/c".to_owned(), b"x".to_vec()),
            ("a".to_owned(), b"hello\n".to_vec()),
        ]);
        assert_eq!(
            set.files_list(),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a\n\
             2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  b/c\n"
        );
        // Computed by coreutils and base64, not by this code.
        assert_eq!(
            set.content_id(),
            "h1:eHuwnxtqyi65/G0e2LxzCeOLjvNz7mxyfzBictLhTrY="
        );
    }

    #[test]
    fn files_and_its_signature_are_set_apart_and_a_folder_reads_the_same() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir(dir.path().join("b")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("a"), "hello\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("b/c"), "x").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join(FILES), "list").unwrap_or_else(|e| panic!("{e}"));
        let set = FileSet::read_dir(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(set.listed.as_deref(), Some("list"));
        assert_eq!(set.files.keys().collect::<Vec<_>>(), ["a", "b/c"]);
        assert!(!valid_path("../x") && !valid_path("/x") && !valid_path("a//b"));
    }
}
