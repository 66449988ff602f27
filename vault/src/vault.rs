//! An opened vault: its secrets by name, held in memory only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use age::secrecy::ExposeSecret;

use crate::{KeySource, VaultError, VaultKey, sealed_file, secrets_text};

/// The secrets of one vault file.
pub struct Vault {
    path: PathBuf,
    secrets: BTreeMap<String, String>,
}

impl std::fmt::Debug for Vault {
    /// Names only: a value never reaches a log through `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vault")
            .field("path", &self.path)
            .field("names", &self.secrets.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Vault {
    /// Opens `path` with `key`: a wrong key, a changed file or a plaintext that is not a table
    /// of strings is an error.
    pub fn open(path: &Path, key: &VaultKey) -> Result<Self, VaultError> {
        let plaintext = sealed_file::open(path, key)?;
        let secrets = secrets_text::parse(path, plaintext.expose_secret())?;
        Ok(Self {
            path: path.to_owned(),
            secrets,
        })
    }

    /// Opens `path` with the key `source` gives.
    pub fn open_with(path: &Path, source: &KeySource) -> Result<Self, VaultError> {
        if !path.exists() {
            return Err(VaultError::File {
                message: format!("no vault `{}`", path.display()),
                help: Some(format!("make one with `cairn vault create {}`", path.display())),
            });
        }
        Self::open(path, &source.key(path, false)?)
    }

    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The secret called `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.secrets.get(name).map(String::as_str)
    }

    /// The secrets' names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.secrets.keys().map(String::as_str)
    }
}
