//! The vault file: the plaintext encrypted with age and ASCII-armored, written `0600` through a
//! temporary beside it, fsynced and renamed over it, so a crash leaves the old file or the new
//! one.

use std::io::{Read, Write};
use std::path::Path;

use age::armor::{ArmoredReader, ArmoredWriter, Format};
use age::secrecy::SecretString;

use crate::{VaultError, VaultKey};

/// The plaintext of `path`, opened with `key`.
pub(crate) fn open(path: &Path, key: &VaultKey) -> Result<SecretString, VaultError> {
    let bytes = std::fs::read(path).map_err(|e| VaultError::io("read", path, e))?;
    let damaged = |reason: String| VaultError::Damaged {
        path: path.to_owned(),
        reason,
    };
    let decryptor = age::Decryptor::new(ArmoredReader::new(bytes.as_slice()))
        .map_err(|e| damaged(e.to_string()))?;
    let scrypt;
    let identities: Vec<&dyn age::Identity> = match key {
        VaultKey::Identity { identities, .. } => identities
            .iter()
            .map(|i| i.as_ref() as &dyn age::Identity)
            .collect(),
        VaultKey::Passphrase { passphrase, .. } => {
            scrypt = age::scrypt::Identity::new(passphrase.clone());
            vec![&scrypt]
        }
    };
    let wrong_key = |reason: String| VaultError::WrongKey {
        path: path.to_owned(),
        key: key.describe(),
        reason,
    };
    let passphrase_file = decryptor.is_scrypt();
    let mut reader = decryptor
        .decrypt(identities.into_iter())
        .map_err(|e| match e {
            age::DecryptError::NoMatchingKeys if passphrase_file => {
                wrong_key("the vault is sealed with a passphrase, not an identity".into())
            }
            age::DecryptError::NoMatchingKeys | age::DecryptError::DecryptionFailed => {
                wrong_key(e.to_string())
            }
            other => damaged(other.to_string()),
        })?;
    let mut plaintext = Vec::new();
    // A payload changed after it was written fails its chunk's authentication here.
    reader
        .read_to_end(&mut plaintext)
        .map_err(|e| damaged(e.to_string()))?;
    String::from_utf8(plaintext)
        .map(SecretString::from)
        .map_err(|_| damaged("its plaintext is not UTF-8".into()))
}

/// Writes `plaintext` to `path`, encrypted to `key`.
pub(crate) fn seal(path: &Path, key: &VaultKey, plaintext: &str) -> Result<(), VaultError> {
    let encryptor = match key {
        VaultKey::Identity { recipients, .. } => age::Encryptor::with_recipients(
            recipients.iter().map(|r| r.as_ref() as &dyn age::Recipient),
        )
        .map_err(|e| VaultError::Key(format!("cannot encrypt to {}: {e}", key.describe())))?,
        VaultKey::Passphrase { passphrase, .. } => {
            age::Encryptor::with_user_passphrase(passphrase.clone())
        }
    };
    let mut sealed = Vec::new();
    let written = (|| {
        let armor = ArmoredWriter::wrap_output(&mut sealed, Format::AsciiArmor)?;
        let mut writer = encryptor.wrap_output(armor)?;
        writer.write_all(plaintext.as_bytes())?;
        writer.finish()?.finish()?;
        Ok::<_, std::io::Error>(())
    })();
    written.map_err(|e| VaultError::io("encrypt", path, e))?;
    write_private(path, &sealed).map_err(|e| VaultError::io("write", path, e))
}

/// `path` replaced by `bytes`: a `0600` temporary beside it, fsynced, renamed over it.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // tempfile creates it `0600`.
    let mut temporary = tempfile::NamedTempFile::new_in(dir)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|e| e.error)?;
    std::fs::File::open(dir)?.sync_all()
}
