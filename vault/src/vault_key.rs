//! The key a vault opens and is sealed with: an age identity file (its X25519 identities open
//! the file, their public keys are what it is encrypted to) or a passphrase (age's scrypt
//! recipient).

use std::path::{Path, PathBuf};

use age::secrecy::SecretString;

use crate::{PassphraseSource, VaultError};

/// Where the key comes from, as the command line gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// An age identity file (`AGE-SECRET-KEY-1...` lines, as `age-keygen` or `cairn vault
    /// keygen` write them).
    Identity(PathBuf),
    /// A passphrase.
    Passphrase(PassphraseSource),
}

impl KeySource {
    /// The key for `vault`; `confirm` asks a prompted passphrase twice (a new one).
    pub fn key(&self, vault: &Path, confirm: bool) -> Result<VaultKey, VaultError> {
        match self {
            Self::Identity(path) => VaultKey::identity_file(path),
            Self::Passphrase(source) => Ok(VaultKey::Passphrase {
                passphrase: source.read(vault, confirm)?,
                source: source.describe(),
            }),
        }
    }
}

/// A key, read.
pub enum VaultKey {
    /// The identities of an identity file, and their recipients.
    Identity {
        /// The file, for messages.
        path: PathBuf,
        /// What opens a vault.
        identities: Vec<Box<dyn age::Identity + Send + Sync>>,
        /// What a vault is encrypted to.
        recipients: Vec<Box<dyn age::Recipient + Send>>,
    },
    /// A passphrase.
    Passphrase {
        /// The passphrase.
        passphrase: SecretString,
        /// Where it came from, for messages.
        source: String,
    },
}

impl std::fmt::Debug for VaultKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl VaultKey {
    /// Reads an age identity file.
    pub fn identity_file(path: &Path) -> Result<Self, VaultError> {
        let unusable = |reason: String| {
            VaultError::Key(format!("the identity file `{}` {reason}", path.display()))
        };
        let file = age::IdentityFile::from_file(path.display().to_string())
            .map_err(|e| unusable(format!("cannot be read: {e}")))?;
        let recipients = file
            .to_recipients()
            .map_err(|e| unusable(format!("has no usable public key: {e}")))?;
        let identities = file
            .into_identities()
            .map_err(|e| unusable(format!("is unusable: {e}")))?;
        if identities.is_empty() {
            return Err(unusable(
                "holds no identity (`AGE-SECRET-KEY-1...` line)".into(),
            ));
        }
        Ok(Self::Identity {
            path: path.to_owned(),
            identities,
            recipients,
        })
    }

    /// As errors name it: "the identity file `x`", "the passphrase from the terminal".
    pub fn describe(&self) -> String {
        match self {
            Self::Identity { path, .. } => format!("the identity file `{}`", path.display()),
            Self::Passphrase { source, .. } => format!("the passphrase from {source}"),
        }
    }
}
