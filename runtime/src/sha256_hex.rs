//! The SHA-256 of some bytes as lowercase hex: a runbook's identity, an `exec` runbook's name,
//! the simulated command log's mark, a report's provenance.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_empty_input_gives_the_published_digest() {
        assert_eq!(
            super::sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
