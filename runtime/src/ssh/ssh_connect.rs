//! Opening one SSH session: TCP (direct, or through `ProxyJump` hosts), the handshake, the host
//! key against known_hosts, then authentication.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use ssh2::{MethodType, Session};

use super::known_hosts::KnownHosts;
use super::ssh_options::home_dir;
use super::{SshError, SshOptions, SshTarget};

/// Why a session could not be opened.
#[derive(Debug)]
pub(crate) enum ConnectError {
    /// Down, refused, timed out, or the handshake failed: try again later.
    Unreachable(String),
    /// The host key, the login or the configuration is wrong: trying again will not help.
    Refused(SshError),
}

/// Opens, checks and authenticates a session to `target`.
pub(crate) fn connect(target: &SshTarget, options: &SshOptions) -> Result<Session, ConnectError> {
    let mut session = Session::new().map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    let limit = millis(target.connect_timeout);
    if target.proxy_jump.is_empty() {
        session.set_tcp_stream(tcp(target)?);
    } else {
        session.set_tcp_stream(through_jump_hosts(target)?);
    }
    session.set_timeout(limit);
    let known_hosts = KnownHosts::new(&options.known_hosts);
    prefer_known_key_types(&session, &known_hosts, target);
    session
        .handshake()
        .map_err(|e| ConnectError::Unreachable(format!("SSH handshake failed: {e}")))?;
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
    authenticate(&session, target, options).map_err(ConnectError::Refused)?;
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
    let mut last = format!("`{}` resolves to no address", target.host_name);
    for address in addresses {
        match TcpStream::connect_timeout(&address, target.connect_timeout) {
            Ok(stream) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Err(e) => last = format!("cannot connect to {address}: {e}"),
        }
    }
    Err(unreachable(last))
}

/// `ProxyJump`: OpenSSH's own `ssh -W` through the jump hosts (as `ssh -J` does), its standard
/// input and output bridged to a socket that the session talks over.
fn through_jump_hosts(target: &SshTarget) -> Result<std::os::unix::net::UnixStream, ConnectError> {
    use std::os::unix::net::UnixStream;
    let unreachable = |reason: String| ConnectError::Unreachable(reason);
    let Some((last, before)) = target.proxy_jump.split_last() else {
        return Err(unreachable("no jump host".into()));
    };
    let (ours, theirs) =
        UnixStream::pair().map_err(|e| unreachable(format!("cannot make a socket pair: {e}")))?;
    let mut command = Command::new("ssh");
    command.args(["-o", "BatchMode=yes", "-W"]);
    command.arg(format!("{}:{}", target.host_name, target.port));
    if !before.is_empty() {
        command.arg("-J").arg(before.join(","));
    }
    let mut child = command
        .arg("--")
        .arg(format!("ssh://{last}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| unreachable(format!("cannot start `ssh -W` for ProxyJump: {e}")))?;
    let (Some(mut to_child), Some(mut from_child)) = (child.stdin.take(), child.stdout.take())
    else {
        return Err(unreachable("`ssh -W` has no pipes".into()));
    };
    let mut reader = theirs
        .try_clone()
        .map_err(|e| unreachable(format!("cannot clone a socket: {e}")))?;
    let mut writer = theirs;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut reader, &mut to_child);
    });
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from_child, &mut writer);
        let _ = writer.shutdown(std::net::Shutdown::Both);
        let _ = child.kill();
        let _ = child.wait();
    });
    Ok(ours)
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

/// Key files (the configured ones, else the default ones), the agent, then a password.
fn authenticate(
    session: &Session,
    target: &SshTarget,
    options: &SshOptions,
) -> Result<(), SshError> {
    let user = target.user.as_str();
    let mut tried: Vec<String> = Vec::new();
    let try_key = |path: &Path, tried: &mut Vec<String>| {
        if !path.exists() {
            return;
        }
        if let Err(e) = session.userauth_pubkey_file(user, None, path, None) {
            tried.push(format!("key {}: {}", path.display(), e.message()));
        }
    };
    for file in &target.identity_files {
        if session.authenticated() {
            break;
        }
        if file.exists() {
            try_key(file, &mut tried);
        } else {
            tried.push(format!("key {}: no such file", file.display()));
        }
    }
    if !session.authenticated()
        && std::env::var_os("SSH_AUTH_SOCK").is_some()
        && let Err(e) = session.userauth_agent(user)
    {
        tried.push(format!("agent: {}", e.message()));
    }
    if !session.authenticated() && target.identity_files.is_empty() {
        for name in ["id_ed25519", "id_ecdsa", "id_rsa"] {
            if session.authenticated() {
                break;
            }
            let path: PathBuf = home_dir().join(".ssh").join(name);
            try_key(&path, &mut tried);
        }
    }
    if !session.authenticated()
        && let Some(variable) = &options.password_env
    {
        match std::env::var(variable) {
            Ok(password) => {
                if let Err(e) = session.userauth_password(user, &password) {
                    tried.push(format!("password from ${variable}: {}", e.message()));
                }
            }
            Err(_) => tried.push(format!("password: ${variable} is not set")),
        }
    }
    if session.authenticated() {
        return Ok(());
    }
    if tried.is_empty() {
        tried.push("no key, agent or password to offer".into());
    }
    Err(SshError::AuthFailed {
        host: target.host_name.clone(),
        tried: tried.join("; "),
        user: user.to_owned(),
    })
}

/// A duration as libssh2's millisecond timeout (0 means none there, so at least 1).
pub(crate) fn millis(duration: Duration) -> u32 {
    u32::try_from(duration.as_millis())
        .unwrap_or(u32::MAX)
        .max(1)
}
