//! Whether a private key file is protected by a passphrase, read from the file itself, so a
//! passphrase is asked for only when one is needed.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The OpenSSH key format's magic, before the cipher name.
const OPENSSH_MAGIC: &[u8] = b"openssh-key-v1\0";

/// Whether the private key `text` (OpenSSH or PEM format) is encrypted.
pub(crate) fn is_encrypted(text: &str) -> bool {
    if text.contains("-----BEGIN OPENSSH PRIVATE KEY-----") {
        return openssh_cipher(text).is_some_and(|cipher| cipher != b"none");
    }
    // PEM: `Proc-Type: 4,ENCRYPTED` (traditional) or `BEGIN ENCRYPTED PRIVATE KEY` (PKCS#8).
    text.contains("ENCRYPTED")
}

/// The cipher name of an OpenSSH-format key: magic, then a length-prefixed string.
fn openssh_cipher(text: &str) -> Option<Vec<u8>> {
    let body: String = text
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .flat_map(|line| line.trim().chars())
        .collect();
    let bytes = STANDARD.decode(body).ok()?;
    let rest = bytes.strip_prefix(OPENSSH_MAGIC)?;
    let length = usize::try_from(u32::from_be_bytes(rest.get(..4)?.try_into().ok()?)).ok()?;
    rest.get(4..4 + length).map(<[u8]>::to_vec)
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;

    fn keygen(dir: &std::path::Path, name: &str, passphrase: &str) -> String {
        let path = dir.join(name);
        let status = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", passphrase, "-f"])
            .arg(&path)
            .stdin(Stdio::null())
            .status();
        assert!(status.is_ok_and(|s| s.success()), "ssh-keygen");
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn openssh_keys_with_and_without_a_passphrase() {
        if Command::new("ssh-keygen").arg("-?").output().is_err() {
            eprintln!("SKIPPED: no ssh-keygen");
            return;
        }
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert!(!is_encrypted(&keygen(dir.path(), "plain", "")));
        assert!(is_encrypted(&keygen(dir.path(), "locked", "correct horse")));
    }

    #[test]
    fn pem_keys_and_garbage() {
        assert!(is_encrypted(
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n"
        ));
        assert!(is_encrypted(
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"
        ));
        assert!(!is_encrypted(
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"
        ));
        assert!(!is_encrypted(
            "-----BEGIN OPENSSH PRIVATE KEY-----\n!!not base64!!\n-----END OPENSSH PRIVATE KEY-----\n"
        ));
        assert!(!is_encrypted(""));
    }
}
