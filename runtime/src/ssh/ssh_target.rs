//! Where and as whom to connect: the inventory's `ssh://[user@]host[:port]` filled in from
//! `~/.ssh/config` (Host patterns, HostName, User, Port, IdentityFile, ProxyJump,
//! ConnectTimeout, ServerAliveInterval), read with the `ssh2-config` crate.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ssh2_config::{ParseRule, SshConfig};

use super::ssh_options::expand_home;
use super::{SshError, SshOptions};

/// A host to connect to, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    /// The name the inventory gave (what `Host` patterns match).
    pub alias: String,
    /// TCP connect and handshake limit.
    pub connect_timeout: Duration,
    /// The host name or address to connect to (and to look up in known_hosts).
    pub host_name: String,
    /// Key files to try, in order.
    pub identity_files: Vec<PathBuf>,
    /// Keepalive interval.
    pub keepalive: Duration,
    /// The port.
    pub port: u16,
    /// Jump hosts, outermost first (`ProxyJump`), as `[user@]host[:port]`.
    pub proxy_jump: Vec<String>,
    /// The user.
    pub user: String,
}

impl SshTarget {
    /// Resolves `host` (with the address's own user and port, which win) against the SSH
    /// configuration file named in `options` (absent is fine).
    pub fn resolve(
        host: &str,
        port: Option<u16>,
        user: Option<&str>,
        options: &SshOptions,
    ) -> Result<Self, SshError> {
        let config = load_config(&options.ssh_config)?;
        let params = config.map(|config| config.query(host));
        let params = params.as_ref();
        let host_name = params
            .and_then(|p| p.host_name.as_deref())
            .map_or_else(|| host.to_owned(), |name| name.replace("%h", host));
        let mut identity_files: Vec<PathBuf> = options.identity_file.iter().cloned().collect();
        for file in params
            .and_then(|p| p.identity_file.as_ref())
            .into_iter()
            .flatten()
        {
            let file = expand_home(&file.to_string_lossy());
            if !identity_files.contains(&file) {
                identity_files.push(file);
            }
        }
        let proxy_jump = params
            .and_then(|p| p.proxy_jump.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|jump| !jump.eq_ignore_ascii_case("none"))
            .collect();
        Ok(Self {
            alias: host.to_owned(),
            connect_timeout: params
                .and_then(|p| p.connect_timeout)
                .unwrap_or(options.connect_timeout),
            host_name,
            identity_files,
            keepalive: params
                .and_then(|p| p.server_alive_interval)
                .filter(|interval| !interval.is_zero())
                .unwrap_or(options.keepalive),
            port: port.or_else(|| params.and_then(|p| p.port)).unwrap_or(22),
            proxy_jump,
            user: user
                .map(str::to_owned)
                .or_else(|| params.and_then(|p| p.user.clone()))
                .unwrap_or_else(local_user),
        })
    }
}

fn load_config(path: &Path) -> Result<Option<SshConfig>, SshError> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(SshError::File {
                action: "cannot read",
                path: path.into(),
                reason: e.to_string(),
            });
        }
    };
    SshConfig::default()
        .parse(
            &mut BufReader::new(file),
            ParseRule::ALLOW_UNKNOWN_FIELDS | ParseRule::ALLOW_UNSUPPORTED_FIELDS,
        )
        .map(Some)
        .map_err(|e| SshError::File {
            action: "cannot parse",
            path: path.into(),
            reason: e.to_string(),
        })
}

/// The local user, as OpenSSH defaults to it.
fn local_user() -> String {
    ["USER", "LOGNAME"]
        .iter()
        .find_map(|key| std::env::var(key).ok().filter(|user| !user.is_empty()))
        .unwrap_or_else(|| "root".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_fills_what_the_address_does_not_give() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            "Host node*\n  HostName %h.lab\n  User admin\n  Port 2222\n  IdentityFile /keys/lab\n  ProxyJump bastion\n  ConnectTimeout 3\n\nHost *\n  User nobody\n  ServerAliveInterval 7\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let options = SshOptions {
            ssh_config: config,
            ..SshOptions::default()
        };
        let Ok(target) = SshTarget::resolve("node01", None, None, &options) else {
            panic!("resolves");
        };
        assert_eq!(target.host_name, "node01.lab");
        assert_eq!(target.user, "admin");
        assert_eq!(target.port, 2222);
        assert_eq!(target.identity_files, [PathBuf::from("/keys/lab")]);
        assert_eq!(target.proxy_jump, ["bastion"]);
        assert_eq!(target.connect_timeout, Duration::from_secs(3));
        assert_eq!(target.keepalive, Duration::from_secs(7));
        let Ok(explicit) = SshTarget::resolve("node01", Some(22), Some("root"), &options) else {
            panic!("resolves");
        };
        assert_eq!((explicit.user.as_str(), explicit.port), ("root", 22));
        let Ok(other) = SshTarget::resolve("db1", None, None, &options) else {
            panic!("resolves");
        };
        assert_eq!(
            (other.host_name.as_str(), other.user.as_str(), other.port),
            ("db1", "nobody", 22)
        );
    }
}
