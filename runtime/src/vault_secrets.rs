//! The secrets of the vault a run was given (`--vault`), as the runtime reads them: the binary
//! opens and decrypts the file (the `cairn-vault` crate) and hands the runtime its path and
//! its values, so the runtime links no cryptography and knows no file format.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A vault's secrets by name, and the file they came from.
pub struct VaultSecrets {
    path: PathBuf,
    secrets: BTreeMap<String, String>,
}

impl VaultSecrets {
    /// The secrets of the vault at `path`.
    pub fn new(path: &Path, secrets: impl IntoIterator<Item = (String, String)>) -> Self {
        Self {
            path: path.to_owned(),
            secrets: secrets.into_iter().collect(),
        }
    }

    /// The vault's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The secret called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.secrets.get(name).map(String::as_str)
    }

    /// The names of its secrets.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.secrets.keys().map(String::as_str)
    }
}

/// Names only: a value never reaches a debug print.
impl std::fmt::Debug for VaultSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VaultSecrets")
            .field("path", &self.path)
            .field("names", &self.secrets.keys().collect::<Vec<_>>())
            .finish()
    }
}
