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
        VaultError::must_exist(path)?;
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

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn sealed_to_an_identity_it_opens_with_it_only_and_refuses_a_changed_byte() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (id, other) = (dir.path().join("id"), dir.path().join("other"));
        for path in [&id, &other] {
            crate::keygen(path).unwrap_or_else(|e| panic!("{e}"));
        }
        let key = VaultKey::identity_file(&id).unwrap_or_else(|e| panic!("{e}"));
        let vault = dir.path().join("site.vault");
        sealed_file::seal(&vault, &key, "esx-root = \"p4ss\"\n").unwrap_or_else(|e| panic!("{e}"));
        let sealed = std::fs::read_to_string(&vault).unwrap_or_default();
        assert!(
            sealed.starts_with("-----BEGIN AGE ENCRYPTED FILE-----"),
            "{sealed}"
        );
        assert!(!sealed.contains("p4ss"));
        let opened = Vault::open(&vault, &key).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opened.get("esx-root"), Some("p4ss"));
        assert_eq!(opened.names().collect::<Vec<_>>(), ["esx-root"]);
        assert!(!format!("{opened:?}").contains("p4ss"));

        let other = VaultKey::identity_file(&other).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            Vault::open(&vault, &other),
            Err(VaultError::WrongKey { .. })
        ));

        let mut bytes = std::fs::read(&vault).unwrap_or_default();
        let at = bytes.len() - "\n-----END AGE ENCRYPTED FILE-----\n".len() - 3;
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        let changed = dir.path().join("changed.vault");
        let mut file = std::fs::File::create(&changed).unwrap_or_else(|e| panic!("{e}"));
        file.write_all(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            Vault::open(&changed, &key),
            Err(VaultError::Damaged { .. })
        ));
    }
}
