//! How one SSH host is to be used, from the run's options and the host's inventory vars.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::SshError;

/// How a password asked on the terminal is shared among hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PasswordPrompt {
    /// Asked once for each `user@host`.
    PerHost,
    /// Asked once for every host that gives this name.
    Shared(String),
}

/// Settings of one SSH host that the address and `~/.ssh/config` do not give.
#[derive(Debug, Clone)]
pub struct SshOptions {
    /// Record the key of a host that known_hosts does not know (`--accept-new-host-keys`).
    pub accept_new_host_keys: bool,
    /// Run every command through `sudo -n --` (host var `become = true`).
    pub become_root: bool,
    /// Where the host keeps its fence (host vars `fence_dir`, `fence_datastore`, `fence`).
    pub fence: super::FenceSetting,
    /// TCP connect and SSH handshake limit (`ConnectTimeout` in `~/.ssh/config` wins).
    pub connect_timeout: Duration,
    /// A key file to try first (host var `identity_file`).
    pub identity_file: Option<PathBuf>,
    /// The environment variable that holds the passphrase of encrypted key files (host var
    /// `identity_passphrase_env`); unset or not named, the passphrase is asked on the terminal.
    pub identity_passphrase_env: Option<String>,
    /// Send a keepalive when the session was idle this long (`ServerAliveInterval` wins).
    pub keepalive: Duration,
    /// The known_hosts file (default `~/.ssh/known_hosts`).
    pub known_hosts: PathBuf,
    /// The environment variable that holds the password (host var `password_env`); the
    /// password itself is read when connecting and kept nowhere.
    pub password_env: Option<String>,
    /// Log in with a password asked on the terminal when `password_env` does not give one (host
    /// var `password_prompt = true`, or a name: hosts that give the same name share one answer).
    pub password_prompt: Option<PasswordPrompt>,
    /// The SSH client configuration (default `~/.ssh/config`; absent is fine).
    pub ssh_config: PathBuf,
    /// The password, from the vault secret the host var `password_vault` names; it wins over
    /// `password_env` and the prompt.
    pub vault_password: Option<VaultSecret>,
    /// The passphrase of encrypted key files, from the vault secret the host var
    /// `identity_passphrase_vault` names.
    pub vault_passphrase: Option<VaultSecret>,
}

/// A credential read from the vault: its name there, and its value (never shown by `{:?}`).
#[derive(Clone, PartialEq, Eq)]
pub struct VaultSecret {
    /// The secret's name in the vault.
    pub name: String,
    /// The value.
    pub value: String,
}

impl std::fmt::Debug for VaultSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VaultSecret({})", self.name)
    }
}

impl Default for SshOptions {
    fn default() -> Self {
        let ssh_dir = home_dir().join(".ssh");
        Self {
            accept_new_host_keys: false,
            become_root: false,
            connect_timeout: Duration::from_secs(10),
            fence: super::FenceSetting::default(),
            identity_file: None,
            identity_passphrase_env: None,
            keepalive: Duration::from_secs(30),
            known_hosts: ssh_dir.join("known_hosts"),
            password_env: None,
            password_prompt: None,
            ssh_config: ssh_dir.join("config"),
            vault_password: None,
            vault_passphrase: None,
        }
    }
}

impl SshOptions {
    /// The defaults, with a host's vars applied: `become` (bool), `password_env` (string),
    /// `password_prompt` (bool or name), `identity_file` (string, `~/` expanded),
    /// `identity_passphrase_env` (string), and `password_vault`, `identity_passphrase_vault`
    /// (names of secrets in `vault`, which must hold them), and the fence's `fence`,
    /// `fence_dir`, `fence_datastore` (`ssh_fence.rs`).
    pub fn for_host(
        vars: &BTreeMap<String, Value>,
        vault: Option<&crate::VaultSecrets>,
    ) -> Result<Self, SshError> {
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
        options.fence = super::FenceSetting::from_vars(vars)?;
        options.password_env = string_var(vars, "password_env")?;
        options.password_prompt = match vars.get("password_prompt") {
            None | Some(Value::Bool(false)) => None,
            Some(Value::Bool(true)) => Some(PasswordPrompt::PerHost),
            Some(Value::String(name)) if !name.is_empty() => {
                Some(PasswordPrompt::Shared(name.clone()))
            }
            Some(other) => {
                return Err(SshError::Invalid(format!(
                    "host var `password_prompt` is {other}: write `true`, or a name that hosts sharing one password give"
                )));
            }
        };
        options.identity_passphrase_env = string_var(vars, "identity_passphrase_env")?;
        options.identity_file = string_var(vars, "identity_file")?.map(|p| expand_home(&p));
        options.vault_password = vault_var(vars, "password_vault", vault)?;
        options.vault_passphrase = vault_var(vars, "identity_passphrase_vault", vault)?;
        Ok(options)
    }
}

/// The vault secret the host var `key` names: a var without a vault, or naming a secret the
/// vault lacks, is refused (with the vault's closest name).
fn vault_var(
    vars: &BTreeMap<String, Value>,
    key: &str,
    vault: Option<&crate::VaultSecrets>,
) -> Result<Option<VaultSecret>, SshError> {
    let Some(name) = string_var(vars, key)? else {
        return Ok(None);
    };
    let Some(vault) = vault else {
        return Err(SshError::Invalid(format!(
            "host var `{key}` names the vault secret `{name}`, but no vault was given (--vault FILE)"
        )));
    };
    match vault.get(&name) {
        Some(value) => Ok(Some(VaultSecret {
            name,
            value: value.to_owned(),
        })),
        None => {
            let near = crate::inventory::closest(&name, vault.names())
                .map(|near| format!("; did you mean `{near}`?"))
                .unwrap_or_default();
            Err(SshError::Invalid(format!(
                "host var `{key}` names the secret `{name}`, which the vault `{}` does not hold{near}",
                vault.path().display()
            )))
        }
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
