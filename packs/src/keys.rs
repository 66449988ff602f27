//! Trusted minisign public keys: the base64 line of a `minisign.pub` (`cairn.toml`'s
//! `[packs] trusted_keys`) or whole `.pub` files in the keys folder. minisign needs no keyring
//! and works offline, which Helm's GPG provenance (helm/helm#2843) and sigstore without a trust
//! root file do not.

use std::path::Path;

use minisign_verify::PublicKey;

/// A key whose signatures over `FILES` are trusted.
#[derive(Debug, Clone)]
pub struct TrustedKey {
    /// The key, the base64 line of its `minisign.pub`: what `cairn.lock` records as the signer.
    pub base64: String,
    /// Where it was trusted: the config file or the `.pub` file.
    pub from: String,
    /// The decoded key.
    pub key: PublicKey,
}

/// A key that does not decode.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{from}: `{text}` is no minisign public key ({reason})")]
#[diagnostic(
    code(cairn::packs::key),
    help("a key is the second line of a `minisign.pub` file, as `minisign -G` writes it")
)]
pub struct KeyError {
    /// Where it was written.
    pub from: String,
    /// Why it does not decode.
    pub reason: String,
    /// The text.
    pub text: String,
}

impl TrustedKey {
    /// The key written as `text` (a base64 line, or a whole `minisign.pub`) in `from`.
    pub fn parse(text: &str, from: &str) -> Result<Self, KeyError> {
        let line = text
            .lines()
            .map(str::trim)
            .rfind(|line| !line.is_empty() && !line.starts_with("untrusted comment:"))
            .unwrap_or_default();
        let key = PublicKey::from_base64(line).map_err(|e| KeyError {
            from: from.to_owned(),
            reason: e.to_string(),
            text: line.to_owned(),
        })?;
        Ok(Self {
            base64: line.to_owned(),
            from: from.to_owned(),
            key,
        })
    }

    /// The key id as minisign prints it (`minisign public key A09FB3AFE77DD9A9`): bytes 2..10
    /// of the decoded key, last byte first.
    pub fn key_id(&self) -> String {
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.base64)
            .unwrap_or_default();
        bytes
            .get(2..10)
            .map(|id| id.iter().rev().map(|b| format!("{b:02X}")).collect())
            .unwrap_or_default()
    }

    /// Every `*.pub` file in `dir`, sorted by name; none when the folder does not exist.
    pub fn read_dir(dir: &Path) -> Result<Vec<Self>, KeyError> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(Vec::new());
        };
        let mut files: Vec<_> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "pub"))
            .collect();
        files.sort();
        files
            .iter()
            .map(|path| {
                let from = path.display().to_string();
                let text = std::fs::read_to_string(path).map_err(|e| KeyError {
                    from: from.clone(),
                    reason: e.to_string(),
                    text: String::new(),
                })?;
                Self::parse(&text, &from)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `minisign -G -W -p k.pub -s k.key` (minisign 0.11, Debian).
    const PUB: &str = "untrusted comment: minisign public key A09FB3AFE77DD9A9\n\
                       RWSp2X3nr7OfoB8DMruxSQfBnJkxAkU/TpG3PxmstIwKYXLFU4yLpb7g\n";

    #[test]
    fn a_pub_file_and_its_base64_line_are_the_same_key_and_junk_is_refused() {
        let file = TrustedKey::parse(PUB, "k.pub").unwrap_or_else(|e| panic!("{e}"));
        let line = TrustedKey::parse(
            "RWSp2X3nr7OfoB8DMruxSQfBnJkxAkU/TpG3PxmstIwKYXLFU4yLpb7g",
            "cairn.toml",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(file.key, line.key);
        assert_eq!(file.base64, line.base64);
        assert_eq!(file.key_id(), "A09FB3AFE77DD9A9");
        let Err(error) = TrustedKey::parse("RWSp2X3nr7Of", "cairn.toml") else {
            panic!("a cut key decoded");
        };
        assert!(error.to_string().contains("cairn.toml"), "{error}");
    }
}
