//! Verifying a pack offline, the same for a folder, an archive and an installed copy: its
//! files are exactly those `FILES` lists, each with the hash listed, and `FILES.minisig`, when
//! there is one, is a minisign signature over `FILES` by a trusted key whose trusted comment
//! names this pack and version (`cairn-pack NAME VERSION`), so a signature cannot be moved to
//! another pack or another version of it. (Ansible verifies signatures only for collections
//! from a server, never a tarball or a folder.)

use std::collections::BTreeMap;

use minisign_verify::Signature;
use semver::Version;

use crate::files::hex;
use crate::{FILES, FileSet, SIGNATURE, TrustedKey};

/// An install record's signer when the pack was installed without a signature.
pub const UNSIGNED: &str = "unsigned";

/// The first word of the trusted comment a pack's signature carries.
pub const COMMENT_PREFIX: &str = "cairn-pack";

/// Who signed a pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The key, the base64 line of its `minisign.pub`.
    pub key: String,
    /// Its id as minisign prints it.
    pub key_id: String,
    /// Where the key is trusted.
    pub trusted_in: String,
}

/// Why a pack does not verify.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum VerifyError {
    /// No `FILES` list.
    #[error("{origin}: no {FILES} list")]
    #[diagnostic(
        code(cairn::packs::no_files),
        help("`cairn recipes pack DIR -o PACK.cairnpack` writes it (docs/recipes.md)")
    )]
    NoList {
        /// The pack.
        origin: String,
    },
    /// A line of `FILES` that is not `SHA256  PATH`.
    #[error("{origin}: {FILES} line {line} is not `SHA256  PATH`: `{text}`")]
    #[diagnostic(code(cairn::packs::files_line))]
    BadLine {
        /// The line number, from 1.
        line: usize,
        /// The pack.
        origin: String,
        /// The line.
        text: String,
    },
    /// `FILES` lists a file the pack lacks.
    #[error("{origin}: {FILES} lists `{path}`, which the pack does not hold")]
    #[diagnostic(code(cairn::packs::missing))]
    Missing {
        /// The pack.
        origin: String,
        /// The file.
        path: String,
    },
    /// The pack holds a file `FILES` does not list.
    #[error("{origin}: `{path}` is not listed in {FILES}")]
    #[diagnostic(
        code(cairn::packs::unlisted),
        help("every file of a pack is listed, so nothing can be slipped in beside them")
    )]
    Unlisted {
        /// The pack.
        origin: String,
        /// The file.
        path: String,
    },
    /// An installed copy whose content is no longer what was installed (its `FILES` rewritten
    /// with a changed file's hash) or whose signature is now another key's.
    #[error("{origin}: {what} than when it was installed ({installed})")]
    #[diagnostic(
        code(cairn::packs::changed_since_install),
        help(
            "an installed pack is read-only: install it again from its source (`cairn recipes install`), which puts a new copy beside it"
        )
    )]
    ChangedSinceInstall {
        /// The pack.
        origin: String,
        /// What differs: `its content id is X, other` or `it is signed by another key`.
        what: String,
        /// What the install record says.
        installed: String,
    },
    /// A file whose bytes are not those listed.
    #[error("{origin}: `{path}` has changed: its sha256 is {actual}, {FILES} lists {listed}")]
    #[diagnostic(code(cairn::packs::changed))]
    Changed {
        /// Its hash now.
        actual: String,
        /// Its hash in `FILES`.
        listed: String,
        /// The pack.
        origin: String,
        /// The file.
        path: String,
    },
    /// `FILES` lists the right hashes but not in the one form its content id is taken of.
    #[error("{origin}: {FILES} is not sorted by path with two spaces after each hash")]
    #[diagnostic(code(cairn::packs::files_form))]
    NotCanonical {
        /// The pack.
        origin: String,
    },
    /// The signature does not decode or does not verify.
    #[error("{origin}: {SIGNATURE} {reason}")]
    #[diagnostic(code(cairn::packs::signature))]
    BadSignature {
        /// The pack.
        origin: String,
        /// Why.
        reason: String,
    },
    /// Signed, but by no trusted key.
    #[error("{origin}: signed by key {key_id}, which is not trusted")]
    #[diagnostic(
        code(cairn::packs::untrusted),
        help(
            "trust the vendor's key: its `minisign.pub` in the keys folder, or its base64 line in `cairn.toml` `[packs] trusted_keys`; trusted now: {trusted}"
        )
    )]
    Untrusted {
        /// The signature's key id.
        key_id: String,
        /// The pack.
        origin: String,
        /// The trusted keys' ids.
        trusted: String,
    },
    /// A good signature for another pack or version.
    #[error(
        "{origin}: the signature's trusted comment is `{comment}`, not `{expected}`: it was made for another pack or version"
    )]
    #[diagnostic(
        code(cairn::packs::moved_signature),
        help("sign with `minisign -S -m FILES -t \"{expected}\"`")
    )]
    OtherPack {
        /// The trusted comment.
        comment: String,
        /// What it must say.
        expected: String,
        /// The pack.
        origin: String,
    },
    /// No signature and unsigned packs not allowed.
    #[error("{origin}: the pack is not signed (no {SIGNATURE})")]
    #[diagnostic(
        code(cairn::packs::unsigned),
        help("install it anyway with `--allow-unsigned`, or ask its vendor for a signed pack")
    )]
    Unsigned {
        /// The pack.
        origin: String,
    },
}

/// The trusted comment a signature of pack `name` at `version` carries.
pub fn expected_comment(name: &str, version: &Version) -> String {
    format!("{COMMENT_PREFIX} {name} {version}")
}

/// Checks that `files` are exactly those their `FILES` lists, with the hashes listed.
pub fn check_listing(files: &FileSet, origin: &str) -> Result<(), VerifyError> {
    let origin = origin.to_owned();
    let Some(listed) = &files.listed else {
        return Err(VerifyError::NoList { origin });
    };
    let mut hashes = BTreeMap::new();
    for (number, line) in listed.lines().enumerate() {
        let parsed = line.split_once("  ").filter(|(hash, path)| {
            hash.len() == 64
                && hash.bytes().all(|b| b.is_ascii_hexdigit())
                && crate::files::valid_path(path)
        });
        let Some((hash, path)) = parsed else {
            return Err(VerifyError::BadLine {
                line: number + 1,
                origin,
                text: line.to_owned(),
            });
        };
        hashes.insert(path, hash.to_ascii_lowercase());
    }
    for (path, listed) in &hashes {
        let Some(bytes) = files.files.get(*path) else {
            return Err(VerifyError::Missing {
                origin,
                path: (*path).to_owned(),
            });
        };
        let actual = hex(&<sha2::Sha256 as sha2::Digest>::digest(bytes));
        if actual != *listed {
            return Err(VerifyError::Changed {
                actual,
                listed: listed.clone(),
                origin,
                path: (*path).to_owned(),
            });
        }
    }
    if let Some(path) = files
        .files
        .keys()
        .find(|p| !hashes.contains_key(p.as_str()))
    {
        return Err(VerifyError::Unlisted {
            origin,
            path: path.clone(),
        });
    }
    if *listed != files.files_list() {
        return Err(VerifyError::NotCanonical { origin });
    }
    Ok(())
}

/// Checks the signature over `FILES`, if there is one: made by one of `keys`, for `name` at
/// `version`. `Ok(None)` when the pack is unsigned and `allow_unsigned`.
pub fn check_signature(
    files: &FileSet,
    name: &str,
    version: &Version,
    keys: &[TrustedKey],
    allow_unsigned: bool,
    origin: &str,
) -> Result<Option<Signer>, VerifyError> {
    let origin = origin.to_owned();
    let Some(text) = &files.signature else {
        return if allow_unsigned {
            Ok(None)
        } else {
            Err(VerifyError::Unsigned { origin })
        };
    };
    let bad = |origin: String, reason: String| VerifyError::BadSignature { origin, reason };
    let signature = Signature::decode(text)
        .map_err(|e| bad(origin.clone(), format!("does not decode: {e}")))?;
    let listed = files.listed.as_deref().unwrap_or_default();
    let mut signer = None;
    for key in keys {
        match key.key.verify(listed.as_bytes(), &signature, false) {
            Ok(()) => {
                signer = Some(key);
                break;
            }
            Err(minisign_verify::Error::UnexpectedKeyId) => {}
            Err(error) => {
                return Err(bad(
                    origin,
                    format!(
                        "does not verify with key {} ({error}): {FILES} is not what was signed",
                        key.key_id()
                    ),
                ));
            }
        }
    }
    let Some(key) = signer else {
        let trusted: Vec<String> = keys.iter().map(TrustedKey::key_id).collect();
        return Err(VerifyError::Untrusted {
            key_id: signature_key_id(text),
            origin,
            trusted: if trusted.is_empty() {
                "none".into()
            } else {
                trusted.join(", ")
            },
        });
    };
    check_comment(&signature, name, version, &origin)?;
    Ok(Some(Signer {
        key: key.base64.clone(),
        key_id: key.key_id(),
        trusted_in: key.from.clone(),
    }))
}

/// Checks an installed copy again, as a run and `cairn recipes verify` do before reading it: its
/// files are those its `FILES` lists, its content id the one installed, and its signature, where
/// it was installed signed, still by the key that signed it then. The signer, `None` when it
/// was installed unsigned.
pub fn verify_installed(
    installed: &crate::Installed,
    keys: &[TrustedKey],
) -> Result<Option<Signer>, VerifyError> {
    let pack = &installed.pack;
    let origin = pack.origin.to_string();
    check_listing(&pack.files, &origin)?;
    let id = pack.content_id();
    if id != installed.record.content_id {
        return Err(VerifyError::ChangedSinceInstall {
            origin,
            what: format!("its content id is {id}, other"),
            installed: installed.record.content_id.clone(),
        });
    }
    let unsigned = installed.record.signer == UNSIGNED;
    let signer = check_signature(
        &pack.files,
        pack.name(),
        &pack.manifest.version,
        keys,
        unsigned,
        &origin,
    )?;
    match signer {
        Some(signer) if unsigned || signer.key != installed.record.signer => {
            Err(VerifyError::ChangedSinceInstall {
                origin,
                what: format!("it is signed by key {}, another", signer.key_id),
                installed: match unsigned {
                    true => "unsigned".into(),
                    false => format!("signed by {}", installed.record.signer),
                },
            })
        }
        signer => Ok(signer),
    }
}

/// Refuses a signature whose trusted comment does not start `cairn-pack NAME VERSION`.
fn check_comment(
    signature: &Signature,
    name: &str,
    version: &Version,
    origin: &str,
) -> Result<(), VerifyError> {
    let comment = signature.trusted_comment();
    let mut words = comment.split_whitespace();
    let names_this_pack = words.next() == Some(COMMENT_PREFIX)
        && words.next() == Some(name)
        && words.next() == Some(version.to_string().as_str());
    if names_this_pack {
        return Ok(());
    }
    Err(VerifyError::OtherPack {
        comment: comment.to_owned(),
        expected: expected_comment(name, version),
        origin: origin.to_owned(),
    })
}

/// Checks, before packing and without any key, that the signature `text` decodes and names
/// pack `name` at `version` (a key checks the rest at install).
pub fn check_signed_for(
    text: &str,
    name: &str,
    version: &Version,
    origin: &str,
) -> Result<(), VerifyError> {
    let signature = Signature::decode(text).map_err(|e| VerifyError::BadSignature {
        origin: origin.to_owned(),
        reason: format!("does not decode: {e}"),
    })?;
    check_comment(&signature, name, version, origin)
}

/// The key id of a signature's second line, as minisign prints it.
fn signature_key_id(text: &str) -> String {
    use base64::Engine as _;
    let line = text.lines().nth(1).unwrap_or_default().trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(line)
        .unwrap_or_default();
    bytes
        .get(2..10)
        .map(|id| id.iter().rev().map(|b| format!("{b:02X}")).collect())
        .unwrap_or_else(|| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    // `minisign -G -W -p k.pub -s k.key; printf 'abc\n' > FILES;
    //  minisign -S -s k.key -m FILES -t "cairn-pack acme/x 1.0.0"` (minisign 0.11, Debian).
    const KEY: &str = "RWSp2X3nr7OfoB8DMruxSQfBnJkxAkU/TpG3PxmstIwKYXLFU4yLpb7g";
    const SIGNED: &str = "untrusted comment: signature from minisign secret key\n\
        RUSp2X3nr7OfoGGA2GFw0m1tAn1onpl+yy9qdEVAD7He/hyjXTv/qvJs2If/wcYwmjbemLb1dku/g0AL5CHv+nD00HTNRx+a1QA=\n\
        trusted comment: cairn-pack acme/x 1.0.0\n\
        mQ6EYFm19JSG33Lt040i4pqbwruIj+JD+wwFygiaFUtQqrsIPxGamW/inZO0CXd/Ho1cVJafahQ4rdep4ukCDw==\n";

    fn signed(listed: &str) -> FileSet {
        FileSet {
            files: BTreeMap::new(),
            listed: Some(listed.to_owned()),
            signature: Some(SIGNED.to_owned()),
        }
    }

    fn keys() -> Vec<TrustedKey> {
        vec![TrustedKey::parse(KEY, "cairn.toml").unwrap_or_else(|e| panic!("{e}"))]
    }

    #[test]
    fn a_signature_verifies_for_its_pack_and_version_only() {
        let v1 = Version::new(1, 0, 0);
        let signer = check_signature(&signed("abc\n"), "acme/x", &v1, &keys(), false, "p")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            signer.map(|s| s.key_id),
            Some("A09FB3AFE77DD9A9".to_owned())
        );
        let moved = check_signature(&signed("abc\n"), "acme/y", &v1, &keys(), false, "p");
        assert!(
            matches!(moved, Err(VerifyError::OtherPack { .. })),
            "{moved:?}"
        );
        let v2 = Version::new(1, 0, 1);
        let moved = check_signature(&signed("abc\n"), "acme/x", &v2, &keys(), false, "p");
        assert!(
            matches!(moved, Err(VerifyError::OtherPack { .. })),
            "{moved:?}"
        );
        let changed = check_signature(&signed("abd\n"), "acme/x", &v1, &keys(), false, "p");
        assert!(
            matches!(changed, Err(VerifyError::BadSignature { .. })),
            "{changed:?}"
        );
        let untrusted = check_signature(&signed("abc\n"), "acme/x", &v1, &[], false, "p");
        let Err(error) = untrusted else {
            panic!("no key trusted, and it verified");
        };
        assert!(error.to_string().contains("A09FB3AFE77DD9A9"), "{error}");
    }

    #[test]
    fn one_changed_byte_an_extra_and_a_missing_file_are_refused_by_name() {
        let good = FileSet::from_entries([("a.rhai".to_owned(), b"let x = 1;\n".to_vec())]);
        let listed = good.files_list();
        let mut set = FileSet {
            listed: Some(listed.clone()),
            ..good.clone()
        };
        assert!(check_listing(&set, "p").is_ok());
        set.files.insert("a.rhai".into(), b"let x = 2;\n".to_vec());
        let Err(VerifyError::Changed { path, .. }) = check_listing(&set, "p") else {
            panic!("a changed byte passed");
        };
        assert_eq!(path, "a.rhai");
        set.files = good.files.clone();
        set.files.insert("b.rhai".into(), Vec::new());
        assert!(
            matches!(check_listing(&set, "p"), Err(VerifyError::Unlisted { path, .. }) if path == "b.rhai")
        );
        set.files.clear();
        assert!(
            matches!(check_listing(&set, "p"), Err(VerifyError::Missing { path, .. }) if path == "a.rhai")
        );
        set.files = good.files.clone();
        set.listed = Some(listed.replace("  ", " "));
        assert!(matches!(
            check_listing(&set, "p"),
            Err(VerifyError::BadLine { line: 1, .. })
        ));
    }
}
