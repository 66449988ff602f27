//! How one SSH host is to be used, from the run's options and the host's inventory vars.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::SshError;

/// Settings of one SSH host that the address and `~/.ssh/config` do not give.
#[derive(Debug, Clone)]
pub struct SshOptions {
    /// Record the key of a host that known_hosts does not know (`--accept-new-host-keys`).
    pub accept_new_host_keys: bool,
    /// Run every command through `sudo -n --` (host var `become = true`).
    pub become_root: bool,
    /// TCP connect and SSH handshake limit (`ConnectTimeout` in `~/.ssh/config` wins).
    pub connect_timeout: Duration,
    /// A key file to try first (host var `identity_file`).
    pub identity_file: Option<PathBuf>,
    /// Send a keepalive when the session was idle this long (`ServerAliveInterval` wins).
    pub keepalive: Duration,
    /// The known_hosts file (default `~/.ssh/known_hosts`).
    pub known_hosts: PathBuf,
    /// The environment variable that holds the password (host var `password_env`); the
    /// password itself is read when connecting and kept nowhere.
    pub password_env: Option<String>,
    /// The SSH client configuration (default `~/.ssh/config`; absent is fine).
    pub ssh_config: PathBuf,
}

impl Default for SshOptions {
    fn default() -> Self {
        let ssh_dir = home_dir().join(".ssh");
        Self {
            accept_new_host_keys: false,
            become_root: false,
            connect_timeout: Duration::from_secs(10),
            identity_file: None,
            keepalive: Duration::from_secs(30),
            known_hosts: ssh_dir.join("known_hosts"),
            password_env: None,
            ssh_config: ssh_dir.join("config"),
        }
    }
}

impl SshOptions {
    /// The defaults, with a host's vars applied: `become` (bool), `password_env` (string),
    /// `identity_file` (string, `~/` expanded).
    pub fn for_host(vars: &BTreeMap<String, Value>) -> Result<Self, SshError> {
        let mut options = Self::default();
        if let Some(value) = vars.get("become") {
            options.become_root = match value {
                Value::Bool(b) => *b,
                Value::String(s) if s == "true" || s == "yes" => true,
                Value::String(s) if s == "false" || s == "no" => false,
                _ => {
                    return Err(SshError::Invalid(format!(
                        "host var `become` is {value}: write `become = true` or `false`"
                    )));
                }
            };
        }
        options.password_env = string_var(vars, "password_env")?;
        options.identity_file = string_var(vars, "identity_file")?.map(|p| expand_home(&p));
        Ok(options)
    }
}

fn string_var(vars: &BTreeMap<String, Value>, key: &str) -> Result<Option<String>, SshError> {
    match vars.get(key) {
        None => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(other) => Err(SshError::Invalid(format!(
            "host var `{key}` is {other}: it must be a non-empty string"
        ))),
    }
}

/// The user's home folder (`$HOME`), or `/` when there is none.
pub(crate) fn home_dir() -> PathBuf {
    std::env::home_dir().unwrap_or_else(|| PathBuf::from("/"))
}

/// `~/x` as `$HOME/x`; anything else as it is.
pub(crate) fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => home_dir().join(rest),
        None => PathBuf::from(path),
    }
}
