//! Opening one SSH session: TCP (direct, or through `ProxyJump` hosts), the handshake, the host
//! key against known_hosts, then authentication.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

use ssh2::{MethodType, Session};

use super::known_hosts::KnownHosts;
use super::login_secret::{SecretCache, SecretRequest, Terminal};
use super::private_key;
use super::proxy_jump::ProxyJump;
use super::ssh_options::home_dir;
use super::{PasswordPrompt, SshError, SshOptions, SshTarget};

/// libssh2's codes for a connection that broke under a call (`include/libssh2.h`:
/// `LIBSSH2_ERROR_SOCKET_SEND` -7, `_TIMEOUT` -9, `_SOCKET_DISCONNECT` -13, `_SOCKET_TIMEOUT`
/// -30, `_SOCKET_RECV` -43): the host did not answer, which says nothing of the login.
const CONNECTION_LOST: [i32; 5] = [-7, -9, -13, -30, -43];
/// libssh2's codes for a call that waited past the session's timeout (`_TIMEOUT`,
/// `_SOCKET_TIMEOUT`): a controller paused past it (SIGSTOP, a laptop's sleep) sees these.
const TIMED_OUT: [i32; 2] = [-9, -30];

/// Why a session could not be opened.
#[derive(Debug)]
pub(crate) enum ConnectError {
    /// Down, refused, or the handshake failed: try again later.
    Unreachable(String),
    /// The connection or the handshake waited past the connect timeout: worth another try at
    /// once, since the pause may have been this machine's.
    TimedOut(String),
    /// The host key, the login or the configuration is wrong: trying again will not help.
    Refused(SshError),
}

/// Opens, checks and authenticates a session to `target`.
pub(crate) fn connect(target: &SshTarget, options: &SshOptions) -> Result<Session, ConnectError> {
    let mut session = Session::new().map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    let limit = millis(target.connect_timeout);
    let mut jump = None;
    if target.proxy_jump.is_empty() {
        session.set_tcp_stream(tcp(target)?);
    } else {
        let (stream, proxy) =
            ProxyJump::start(target, options).map_err(ConnectError::Unreachable)?;
        session.set_tcp_stream(stream);
        jump = Some(proxy);
    }
    session.set_timeout(limit);
    let known_hosts = KnownHosts::new(&options.known_hosts);
    prefer_known_key_types(&session, &known_hosts, target);
    session.handshake().map_err(|e| {
        let why = jump.as_ref().map(ProxyJump::failure).unwrap_or_default();
        let reason = format!("SSH handshake failed: {e}{why}");
        if is_code(&e, &TIMED_OUT) {
            ConnectError::TimedOut(reason)
        } else {
            ConnectError::Unreachable(reason)
        }
    })?;
    let Some((key, _)) = session.host_key() else {
        return Err(ConnectError::Refused(SshError::NoHostKey {
            host: target.host_name.clone(),
        }));
    };
    known_hosts
        .check(
            &target.host_name,
            target.port,
            key,
            options.accept_new_host_keys,
        )
        .map_err(ConnectError::Refused)?;
    authenticate(&session, target, options)?;
    session.set_keepalive(
        true,
        u32::try_from(target.keepalive.as_secs())
            .unwrap_or(30)
            .max(1),
    );
    Ok(session)
}

fn tcp(target: &SshTarget) -> Result<TcpStream, ConnectError> {
    let unreachable = |reason: String| ConnectError::Unreachable(reason);
    let addresses = (target.host_name.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| unreachable(format!("cannot resolve `{}`: {e}", target.host_name)))?;
    let mut last = unreachable(format!("`{}` resolves to no address", target.host_name));
    for address in addresses {
        match TcpStream::connect_timeout(&address, target.connect_timeout) {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                last = ConnectError::TimedOut(format!("cannot connect to {address}: {e}"));
            }
            Err(e) => last = unreachable(format!("cannot connect to {address}: {e}")),
        }
    }
    Err(last)
}

/// Asks for the key types known_hosts already holds for the host first, as OpenSSH does, so a
/// host with several keys offers the one we know.
fn prefer_known_key_types(session: &Session, known_hosts: &KnownHosts, target: &SshTarget) {
    let known = known_hosts.known_types(&target.host_name, target.port);
    if known.is_empty() {
        return;
    }
    let Ok(supported) = session.supported_algs(MethodType::HostKey) else {
        return;
    };
    let mut preferred: Vec<&str> = Vec::new();
    for key_type in &known {
        let algorithms: Vec<&str> = if key_type == "ssh-rsa" {
            vec!["rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"]
        } else {
            vec![key_type.as_str()]
        };
        for algorithm in algorithms {
            if supported.contains(&algorithm) && !preferred.contains(&algorithm) {
                preferred.push(algorithm);
            }
        }
    }
    for algorithm in &supported {
        if !preferred.contains(algorithm) {
            preferred.push(algorithm);
        }
    }
    let _ = session.method_pref(MethodType::HostKey, &preferred.join(","));
}

/// Whether libssh2 failed `error` with one of `codes`.
fn is_code(error: &ssh2::Error, codes: &[i32]) -> bool {
    matches!(error.code(), ssh2::ErrorCode::Session(code) if codes.contains(&code))
}

/// Logs in; a connection lost meanwhile is what happened, not a key or password refused.
fn authenticate(
    session: &Session,
    target: &SshTarget,
    options: &SshOptions,
) -> Result<(), ConnectError> {
    let lost = std::cell::RefCell::new(None::<String>);
    let noted = |result: Result<(), ssh2::Error>| {
        result.inspect_err(|e| {
            if is_code(e, &CONNECTION_LOST) {
                lost.borrow_mut()
                    .get_or_insert_with(|| e.message().to_owned());
            }
        })
    };
    let result = offer_credentials(session, target, options, &noted);
    match lost.into_inner() {
        Some(why) if result.is_err() => Err(ConnectError::Unreachable(format!(
            "the connection was lost while logging in as {} (no credential was refused): {why}",
            target.user
        ))),
        _ => result.map_err(ConnectError::Refused),
    }
}

/// Key files (the configured ones, else the default ones), the agent, then a password; each
/// libssh2 result passes through `noted`.
fn offer_credentials(
    session: &Session,
    target: &SshTarget,
    options: &SshOptions,
    noted: &dyn Fn(Result<(), ssh2::Error>) -> Result<(), ssh2::Error>,
) -> Result<(), SshError> {
    let mut login = Login {
        noted,
        options,
        session,
        target,
        tried: Vec::new(),
    };
    login.configured_keys();
    login.agent();
    login.default_keys();
    login.vault_password();
    login.asked_password();
    login.outcome()
}

/// One login: each method a way to authenticate, offered in the order a login tries them until
/// one is taken, and what each was refused with.
struct Login<'a> {
    noted: &'a dyn Fn(Result<(), ssh2::Error>) -> Result<(), ssh2::Error>,
    options: &'a SshOptions,
    session: &'a Session,
    target: &'a SshTarget,
    tried: Vec<String>,
}

impl Login<'_> {
    fn user(&self) -> &str {
        self.target.user.as_str()
    }

    /// The inventory's or `~/.ssh/config`'s key files.
    fn configured_keys(&mut self) {
        for file in &self.target.identity_files {
            if self.session.authenticated() {
                break;
            }
            if file.exists() {
                self.key(file);
            } else {
                self.tried
                    .push(format!("key {}: no such file", file.display()));
            }
        }
    }

    fn agent(&mut self) {
        if !self.session.authenticated()
            && std::env::var_os("SSH_AUTH_SOCK").is_some()
            && let Err(e) = (self.noted)(self.session.userauth_agent(self.user()))
        {
            self.tried.push(format!("agent: {}", e.message()));
        }
    }

    /// OpenSSH's default key files, when none is configured.
    fn default_keys(&mut self) {
        if self.session.authenticated() || !self.target.identity_files.is_empty() {
            return;
        }
        for name in ["id_ed25519", "id_ecdsa", "id_rsa"] {
            if self.session.authenticated() {
                break;
            }
            let path: PathBuf = home_dir().join(".ssh").join(name);
            if path.exists() {
                self.key(&path);
            }
        }
    }

    fn key(&mut self, path: &Path) {
        let Ok(text) = std::fs::read_to_string(path) else {
            self.tried
                .push(format!("key {}: cannot read it", path.display()));
            return;
        };
        if private_key::is_encrypted(&text) {
            self.encrypted_key(path);
        } else if let Err(e) =
            (self.noted)(
                self.session
                    .userauth_pubkey_file(self.user(), None, path, None),
            )
        {
            self.tried
                .push(format!("key {}: {}", path.display(), e.message()));
        }
    }

    /// An encrypted key, with the vault's passphrase, else one asked once and cached.
    fn encrypted_key(&mut self, path: &Path) {
        let (session, user) = (self.session, self.user());
        if let Some(secret) = &self.options.vault_passphrase {
            if let Err(e) = session.userauth_pubkey_file(user, None, path, Some(&secret.value)) {
                self.tried.push(format!(
                    "key {} (encrypted, passphrase `{}` from the vault): {}",
                    path.display(),
                    secret.name,
                    e.message()
                ));
            }
            return;
        }
        let request = SecretRequest {
            key: format!("passphrase:{}", path.display()),
            prompt: format!("cairn: passphrase for key {}: ", path.display()),
            variable: self.options.identity_passphrase_env.clone(),
        };
        let cache = SecretCache::global();
        match cache.get(&request, &Terminal) {
            Ok(passphrase) => {
                if let Err(e) =
                    (self.noted)(session.userauth_pubkey_file(user, None, path, Some(&passphrase)))
                {
                    cache.forget(&request.key);
                    self.tried.push(format!(
                        "key {} (encrypted): {}",
                        path.display(),
                        e.message()
                    ));
                }
            }
            Err(reason) => self.tried.push(format!(
                "key {} is encrypted and has no passphrase: {reason}",
                path.display()
            )),
        }
    }

    fn vault_password(&mut self) {
        if !self.session.authenticated()
            && let Some(secret) = &self.options.vault_password
            && let Err(e) = self.session.userauth_password(self.user(), &secret.value)
        {
            self.tried.push(format!(
                "password `{}` from the vault: {}",
                secret.name,
                e.message()
            ));
        }
    }

    /// A password from `password_env` or the terminal, when the vault holds none.
    fn asked_password(&mut self) {
        if self.session.authenticated() || self.options.vault_password.is_some() {
            return;
        }
        let Some(request) = password_request(self.target, self.options) else {
            return;
        };
        let cache = SecretCache::global();
        match cache.get(&request, &Terminal) {
            Ok(password) => {
                if let Err(e) = (self.noted)(self.session.userauth_password(self.user(), &password))
                {
                    cache.forget(&request.key);
                    let from = match &self.options.password_env {
                        Some(variable) if std::env::var_os(variable).is_some() => {
                            format!("password from ${variable}")
                        }
                        _ => "password asked on the terminal".to_owned(),
                    };
                    self.tried.push(format!("{from}: {}", e.message()));
                }
            }
            Err(reason) => self.tried.push(format!("password: {reason}")),
        }
    }

    /// Logged in, or refused with every method tried.
    fn outcome(mut self) -> Result<(), SshError> {
        if self.session.authenticated() {
            return Ok(());
        }
        if self.tried.is_empty() {
            self.tried.push("no key, agent or password to offer".into());
        }
        Err(SshError::AuthFailed {
            host: self.target.host_name.clone(),
            tried: self.tried.join("; "),
            user: self.target.user.clone(),
        })
    }
}

/// Where the password comes from: the variable `password_env` names, else the terminal, once
/// per variable (hosts naming the same one share the answer), per `password_prompt` name, or
/// per `user@host`. `None`: the inventory asks for no password login.
pub(crate) fn password_request(target: &SshTarget, options: &SshOptions) -> Option<SecretRequest> {
    let account = format!("{}@{}", target.user, target.host_name);
    let (key, prompt) = match (&options.password_env, &options.password_prompt) {
        (None, None) => return None,
        (Some(variable), _) => (
            format!("password_env:{variable}"),
            format!(
                "cairn: ${variable} is not set; password for {account} (and every host naming ${variable}): "
            ),
        ),
        (None, Some(PasswordPrompt::Shared(name))) => (
            format!("password_prompt:{name}"),
            format!("cairn: password `{name}` (for {account} and every host naming it): "),
        ),
        (None, Some(PasswordPrompt::PerHost)) => (
            format!("account:{account}:{}", target.port),
            format!("cairn: password for {account}: "),
        ),
    };
    Some(SecretRequest {
        key,
        prompt,
        variable: options.password_env.clone(),
    })
}

/// A duration as libssh2's millisecond timeout (0 means none there, so at least 1).
pub(crate) fn millis(duration: Duration) -> u32 {
    u32::try_from(duration.as_millis())
        .unwrap_or(u32::MAX)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_connection_is_told_from_a_refused_credential() {
        let lost = ssh2::Error::new(ssh2::ErrorCode::Session(-43), "Failure while receiving");
        let refused = ssh2::Error::new(
            ssh2::ErrorCode::Session(-18),
            "Username/PublicKey combination invalid",
        );
        assert!(is_code(&lost, &CONNECTION_LOST));
        assert!(!is_code(&refused, &CONNECTION_LOST));
        let paused = ssh2::Error::new(ssh2::ErrorCode::Session(-9), "API timeout expired");
        assert!(is_code(&paused, &TIMED_OUT) && !is_code(&lost, &TIMED_OUT));
    }
}
