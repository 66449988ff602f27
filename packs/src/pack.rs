//! A pack: its manifest and its files, from where it came. The shipped recipes are one, built
//! into the binary (`build.rs`), so `cargo install` gives a `cairn` that carries them.

use std::path::{Path, PathBuf};

use sha2::Digest as _;

use crate::{FileSet, MANIFEST, Manifest, ManifestError};

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// Where a pack came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Built into this binary.
    Builtin,
    /// A folder.
    Folder(PathBuf),
    /// A `.cairnpack` archive.
    Archive(PathBuf),
    /// Installed in the packs home (`packs_home.rs`).
    Installed(PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Builtin => write!(f, "built in"),
            Self::Folder(path) | Self::Archive(path) => write!(f, "{}", path.display()),
            Self::Installed(path) => write!(f, "installed in {}", path.display()),
        }
    }
}

/// A pack's manifest and files.
#[derive(Debug, Clone)]
pub struct Pack {
    /// Its files.
    pub files: FileSet,
    /// Its manifest, parsed.
    pub manifest: Manifest,
    /// Where it came from.
    pub origin: Origin,
}

/// A pack that cannot be used: no manifest, a bad one, or a recipe or lab it does not hold.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum PackError {
    /// The manifest does not parse.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Manifest(#[from] ManifestError),
    /// The files are not those listed, or the signature does not hold.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Verify(#[from] crate::VerifyError),
    /// A trusted key does not decode.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Key(crate::KeyError),
    /// The archive does not read.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Archive(#[from] crate::ArchiveError),
    /// Something else, said in words.
    #[error("{message}")]
    #[diagnostic(code(cairn::packs::pack))]
    Other {
        /// A hint.
        #[help]
        help: Option<String>,
        /// What is wrong.
        message: String,
    },
}

impl Pack {
    /// The pack of `files`, named `origin`, its manifest parsed and every listed file present.
    pub fn new(files: FileSet, origin: Origin) -> Result<Self, PackError> {
        let Some(text) = files.text(MANIFEST) else {
            return Err(PackError::Other {
                help: Some(format!(
                    "a pack's root holds its `{MANIFEST}` (docs/recipes.md)"
                )),
                message: format!("{origin}: no {MANIFEST}"),
            });
        };
        let manifest = Manifest::parse(&format!("{origin}/{MANIFEST}"), text)?;
        for (recipe, entry) in &manifest.recipes {
            for file in std::iter::once(&entry.file).chain(&entry.lab) {
                if !files.files.contains_key(file) {
                    return Err(PackError::Other {
                        help: None,
                        message: format!(
                            "{origin}: recipe `{recipe}` names `{file}`, which the pack does not hold"
                        ),
                    });
                }
            }
        }
        Ok(Self {
            files,
            manifest,
            origin,
        })
    }

    /// The packs built into this binary.
    pub fn builtin() -> Result<Vec<Self>, PackError> {
        let files = SHIPPED
            .iter()
            .map(|(path, bytes)| ((*path).to_owned(), bytes.to_vec()));
        Ok(vec![Self::new(
            FileSet::from_entries(files),
            Origin::Builtin,
        )?])
    }

    /// The pack in the folder `dir`.
    pub fn read_dir(dir: &Path) -> Result<Self, PackError> {
        let files = FileSet::read_dir(dir).map_err(|e| PackError::Other {
            help: None,
            message: e.to_string(),
        })?;
        Self::new(files, Origin::Folder(dir.to_path_buf()))
    }

    /// The pack in `path`: a `.cairnpack` archive, else a folder.
    pub fn read(path: &Path) -> Result<Self, PackError> {
        if !path.is_file() {
            return Self::read_dir(path);
        }
        let bytes = std::fs::read(path).map_err(|e| PackError::Other {
            help: None,
            message: format!("{}: {e}", path.display()),
        })?;
        let files = crate::archive::read(&bytes, path)?;
        Self::new(files, Origin::Archive(path.to_path_buf()))
    }

    /// `namespace/name`.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// Refuses the pack unless this cairn, at `version`, is in the range its manifest needs;
    /// the diagnostic points at the manifest's `cairn` key.
    pub fn check_cairn(&self, version: &semver::Version) -> Result<(), PackError> {
        let text = self.files.text(MANIFEST).unwrap_or_default();
        let name = format!("{}/{MANIFEST}", self.origin);
        Ok(self.manifest.check_cairn(&name, text, version)?)
    }

    /// The content id of its files (`files.rs`).
    pub fn content_id(&self) -> String {
        self.files.content_id()
    }

    /// The text of the lab of `recipe`, if it has one.
    pub fn lab(&self, recipe: &str) -> Option<&str> {
        let lab = self.manifest.recipes.get(recipe)?.lab.as_ref()?;
        self.files.text(lab)
    }

    /// Writes the pack's files under `dir` (made if missing), once: a folder already holding
    /// them is left as it is. The folder is named by the content id, so it never changes.
    pub fn materialize(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let id = crate::files::hex(&sha2::Sha256::digest(self.content_id().as_bytes()));
        let name = self.manifest.name.replace('/', "-");
        let folder = dir.join(format!("{name}-{}-{}", self.manifest.version, &id[..16]));
        if folder.join(MANIFEST).is_file() {
            return Ok(folder);
        }
        let partial = dir.join(format!(".partial-{}-{}", &id[..16], std::process::id()));
        for (path, bytes) in &self.files.files {
            let file = partial.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(file, bytes)?;
        }
        std::fs::write(partial.join(crate::FILES), self.files.files_list())?;
        match std::fs::rename(&partial, &folder) {
            Ok(()) => Ok(folder),
            // Another process put the same files there first.
            Err(_) if folder.join(MANIFEST).is_file() => {
                let _ = std::fs::remove_dir_all(&partial);
                Ok(folder)
            }
            Err(error) => Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_pack_holds_every_recipe_and_lab_its_manifest_names() {
        let packs = Pack::builtin().unwrap_or_else(|e| panic!("{e}"));
        let pack = &packs[0];
        assert_eq!(pack.name(), "cairn/connectx");
        assert!(
            pack.lab("vma-latency")
                .is_some_and(|lab| lab.contains("[hosts"))
        );
        // The same files as the folder they were built from: the same content id.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runbooks");
        let folder = Pack::read_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(folder.content_id(), pack.content_id());
    }

    #[test]
    fn a_materialized_pack_reads_back_with_the_same_content_id() {
        let packs = Pack::builtin().unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let folder = packs[0]
            .materialize(dir.path())
            .unwrap_or_else(|e| panic!("{e}"));
        let again = packs[0]
            .materialize(dir.path())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(folder, again);
        let read = Pack::read_dir(&folder).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read.content_id(), packs[0].content_id());
        assert_eq!(
            read.files.listed.as_deref(),
            Some(packs[0].files.files_list().as_str())
        );
    }
}
