//! `known_hosts`: is this the key the host had before; learn a new host's key when allowed.
//!
//! Our own reader, because libssh2's check ignores key types and cannot name the old key: it
//! reads OpenSSH's format (patterns with `*`, `?` and `!`, `[host]:port`, hashed `|1|` names,
//! `@revoked`; `@cert-authority` lines are skipped) and appends new keys as plain lines.

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use super::SshError;

/// A known_hosts file.
#[derive(Debug, Clone)]
pub struct KnownHosts {
    path: PathBuf,
}

/// One key line of the file.
#[derive(Debug)]
struct Entry {
    key: Vec<u8>,
    key_type: String,
    line: usize,
    patterns: String,
    revoked: bool,
}

impl KnownHosts {
    /// The file at `path` (which need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Key types known for `host`:`port`, for the host key algorithm preference.
    pub fn known_types(&self, host: &str, port: u16) -> Vec<String> {
        let name = lookup_name(host, port);
        let mut types: Vec<String> = Vec::new();
        for entry in parse(&std::fs::read_to_string(&self.path).unwrap_or_default()) {
            if !entry.revoked
                && host_matches(&entry.patterns, &name)
                && !types.contains(&entry.key_type)
            {
                types.push(entry.key_type);
            }
        }
        types
    }

    /// Checks the key `key` (the SSH wire blob) that `host`:`port` offered. An unknown host is
    /// an error unless `accept_new`, when its key is appended to the file.
    pub fn check(
        &self,
        host: &str,
        port: u16,
        key: &[u8],
        accept_new: bool,
    ) -> Result<(), SshError> {
        let name = lookup_name(host, port);
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(self.file_error("cannot read", &e)),
        };
        let host = name.as_str();
        if self.verdict(host, &name, key, &text)? {
            return Ok(());
        }
        if !accept_new {
            return Err(SshError::HostKeyUnknown {
                file: self.path.clone(),
                fingerprint: fingerprint(key),
                host: host.into(),
            });
        }
        self.learn(host, &name, key)
    }

    /// `Ok(true)`: known and unchanged; `Ok(false)`: unknown; `Err`: changed or revoked.
    fn verdict(&self, host: &str, name: &str, key: &[u8], text: &str) -> Result<bool, SshError> {
        let entries: Vec<Entry> = parse(text)
            .into_iter()
            .filter(|entry| host_matches(&entry.patterns, name))
            .collect();
        if let Some(revoked) = entries.iter().find(|e| e.revoked && e.key == key) {
            return Err(SshError::HostKeyRevoked {
                file: self.path.clone(),
                fingerprint: fingerprint(key),
                host: host.into(),
                line: revoked.line,
            });
        }
        let plain: Vec<&Entry> = entries.iter().filter(|e| !e.revoked).collect();
        if plain.iter().any(|e| e.key == key) {
            return Ok(true);
        }
        let offered_type = key_type(key).unwrap_or_default();
        let old = plain
            .iter()
            .find(|e| e.key_type == offered_type)
            .or_else(|| plain.first());
        match old {
            Some(old) => Err(SshError::HostKeyChanged {
                file: self.path.clone(),
                host: host.into(),
                known_fingerprint: fingerprint(&old.key),
                line: old.line,
                lookup: name.into(),
                offered_fingerprint: fingerprint(key),
            }),
            None => Ok(false),
        }
    }

    /// Appends `name`'s key under a lock, unless another thread or process did meanwhile.
    fn learn(&self, host: &str, name: &str, key: &[u8]) -> Result<(), SshError> {
        let Some(key_type) = key_type(key) else {
            return Err(SshError::NoHostKey { host: host.into() });
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.file_error("cannot create", &e))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| self.file_error("cannot open", &e))?;
        file.lock()
            .map_err(|e| self.file_error("cannot lock", &e))?;
        let mut text = String::new();
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_to_string(&mut text))
            .map_err(|e| self.file_error("cannot read", &e))?;
        if self.verdict(host, name, key, &text)? {
            return Ok(());
        }
        let separator = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        let line = format!("{separator}{name} {key_type} {}\n", STANDARD.encode(key));
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| self.file_error("cannot write", &e))
    }

    fn file_error(&self, action: &'static str, error: &std::io::Error) -> SshError {
        SshError::File {
            action,
            path: self.path.clone(),
            reason: error.to_string(),
        }
    }
}

/// The name known_hosts files a host under: `host` on port 22, else `[host]:port`.
pub fn lookup_name(host: &str, port: u16) -> String {
    if port == 22 {
        host.to_owned()
    } else {
        format!("[{host}]:{port}")
    }
}

/// OpenSSH's fingerprint of a key blob: `SHA256:` and the unpadded base64 of its SHA-256.
pub fn fingerprint(key: &[u8]) -> String {
    format!("SHA256:{}", STANDARD_NO_PAD.encode(Sha256::digest(key)))
}

/// The key type a wire blob starts with (`ssh-ed25519`, `ecdsa-sha2-nistp256`, ...).
pub fn key_type(key: &[u8]) -> Option<String> {
    let length = u32::from_be_bytes(key.get(..4)?.try_into().ok()?);
    let name = key.get(4..4 + usize::try_from(length).ok()?)?;
    String::from_utf8(name.to_vec()).ok()
}

fn parse(text: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut fields = line.split_whitespace();
        let Some(mut first) = fields.next() else {
            continue;
        };
        if first.starts_with('#') {
            continue;
        }
        let mut revoked = false;
        if first.starts_with('@') {
            if first != "@revoked" {
                continue; // @cert-authority: cairn does not check host certificates
            }
            revoked = true;
            let Some(next) = fields.next() else { continue };
            first = next;
        }
        let (Some(key_type), Some(key)) = (fields.next(), fields.next()) else {
            continue;
        };
        let Ok(key) = STANDARD.decode(key) else {
            continue;
        };
        entries.push(Entry {
            key,
            key_type: key_type.to_owned(),
            line: index + 1,
            patterns: first.to_owned(),
            revoked,
        });
    }
    entries
}

/// Whether a host field (`a,b*,![c]:2222` or `|1|salt|hash`) names `name`.
fn host_matches(patterns: &str, name: &str) -> bool {
    if let Some(hashed) = patterns.strip_prefix("|1|") {
        return hashed_matches(hashed, name);
    }
    let name = name.to_ascii_lowercase();
    let mut matched = false;
    for pattern in patterns.split(',') {
        let (negated, pattern) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        if wildcard(&pattern.to_ascii_lowercase(), &name) {
            if negated {
                return false;
            }
            matched = true;
        }
    }
    matched
}

fn hashed_matches(hashed: &str, name: &str) -> bool {
    let Some((salt, hash)) = hashed.split_once('|') else {
        return false;
    };
    let (Ok(salt), Ok(hash)) = (STANDARD.decode(salt), STANDARD.decode(hash)) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<sha1::Sha1>::new_from_slice(&salt) else {
        return false;
    };
    mac.update(name.as_bytes());
    mac.verify_slice(&hash).is_ok()
}

/// `*` and `?` glob matching, as OpenSSH's `match_pattern`.
fn wildcard(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), text.chars().collect());
    let (mut p, mut t) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                backtrack = Some((p, t));
                p += 1;
            }
            Some(c) if *c == '?' || Some(c) == text.get(t) => {
                p += 1;
                t += 1;
            }
            _ => match backtrack {
                Some((star, at)) => {
                    p = star + 1;
                    t = at + 1;
                    backtrack = Some((star, at + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|c| *c == '*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(key_type: &str, body: &[u8]) -> Vec<u8> {
        let mut blob = u32::try_from(key_type.len())
            .unwrap_or(0)
            .to_be_bytes()
            .to_vec();
        blob.extend_from_slice(key_type.as_bytes());
        blob.extend_from_slice(body);
        blob
    }

    #[test]
    fn patterns_ports_negation_and_hashes() {
        assert!(host_matches("node*,!node13", "node12"));
        assert!(!host_matches("node*,!node13", "node13"));
        assert!(host_matches("[127.0.0.1]:2201", "[127.0.0.1]:2201"));
        assert!(!host_matches("127.0.0.1", "[127.0.0.1]:2201"));
        assert!(host_matches("n?de01", "NODE01"));
        // `ssh-keygen -H` of `node01`, salt 16 zero bytes.
        let salt = [0_u8; 20];
        let Ok(mut mac) = Hmac::<sha1::Sha1>::new_from_slice(&salt) else {
            panic!("hmac");
        };
        mac.update(b"node01");
        let hashed = format!(
            "|1|{}|{}",
            STANDARD.encode(salt),
            STANDARD.encode(mac.finalize().into_bytes())
        );
        assert!(host_matches(&hashed, "node01"));
        assert!(!host_matches(&hashed, "node02"));
    }

    #[test]
    fn unknown_learned_unchanged_and_changed() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let known = KnownHosts::new(dir.path().join("ssh/known_hosts"));
        let old = blob("ssh-ed25519", b"old key");
        let new = blob("ssh-ed25519", b"new key");
        assert!(matches!(
            known.check("h", 2201, &old, false),
            Err(SshError::HostKeyUnknown { .. })
        ));
        assert_eq!(known.check("h", 2201, &old, true), Ok(()));
        assert_eq!(known.check("h", 2201, &old, false), Ok(()));
        assert_eq!(known.known_types("h", 2201), ["ssh-ed25519"]);
        let Err(SshError::HostKeyChanged {
            known_fingerprint,
            offered_fingerprint,
            line,
            ..
        }) = known.check("h", 2201, &new, true)
        else {
            panic!("a changed key is refused, even with accept-new");
        };
        assert_eq!(known_fingerprint, fingerprint(&old));
        assert_eq!(offered_fingerprint, fingerprint(&new));
        assert_eq!(line, 1);
        assert_eq!(key_type(&new).as_deref(), Some("ssh-ed25519"));
        assert!(fingerprint(&new).starts_with("SHA256:"));
    }

    #[test]
    fn wildcards() {
        assert!(wildcard("*", "anything"));
        assert!(wildcard("a*c", "abbbc"));
        assert!(!wildcard("a*c", "abbbd"));
        assert!(wildcard("?b", "ab"));
        assert!(!wildcard("", "a"));
    }
}
