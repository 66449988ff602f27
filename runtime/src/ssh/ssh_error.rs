//! Why an SSH host could not be used: its host key, authentication, or its configuration.
//!
//! These reach the executor inside [`TransportError::Io`](crate::TransportError::Io) (the
//! operating-system error wraps an `SshError`, so `std::io::Error::get_ref` and `downcast_ref`
//! give it back, typed), with the whole message in the context so it is shown as it is.

use std::path::PathBuf;

/// An SSH failure that retrying will not cure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum SshError {
    /// No way of logging in worked.
    #[error("cannot log in to `{host}` as `{user}`: {tried}")]
    #[diagnostic(
        code(cairn::ssh::auth_failed),
        help(
            "cairn tries the IdentityFile keys of ~/.ssh/config and the host var `identity_file` (an encrypted key's passphrase from the variable the host var `identity_passphrase_env` names, else asked on the terminal), the SSH agent, ~/.ssh/id_ed25519, id_ecdsa and id_rsa, then a password: from the variable the host var `password_env` names, else asked on the terminal (host var `password_prompt`); nothing is asked when standard input is not a terminal"
        )
    )]
    AuthFailed {
        /// The host.
        host: String,
        /// What was tried, and why each failed.
        tried: String,
        /// The user.
        user: String,
    },
    /// The host offered a key other than the one `known_hosts` holds for it.
    #[error(
        "the host key of `{host}` has changed: known_hosts ({file}:{line}) holds {known_fingerprint}, the host offered {offered_fingerprint}; someone may be intercepting the connection, or the host was reinstalled"
    )]
    #[diagnostic(
        code(cairn::ssh::host_key_changed),
        help(
            "if the host was reinstalled, remove its old key (`ssh-keygen -R '{lookup}'`) and run again with --accept-new-host-keys"
        )
    )]
    HostKeyChanged {
        /// The known_hosts file.
        file: PathBuf,
        /// The host as the connection names it.
        host: String,
        /// The fingerprint known_hosts holds (`SHA256:...`).
        known_fingerprint: String,
        /// Its line in the file.
        line: usize,
        /// The name known_hosts is searched for: `host` or `[host]:port`.
        lookup: String,
        /// The fingerprint the host offered (`SHA256:...`).
        offered_fingerprint: String,
    },
    /// The host's key is marked `@revoked` in known_hosts.
    #[error("the host key of `{host}` ({fingerprint}) is revoked in {file}:{line}")]
    #[diagnostic(code(cairn::ssh::host_key_revoked))]
    HostKeyRevoked {
        /// The known_hosts file.
        file: PathBuf,
        /// The fingerprint.
        fingerprint: String,
        /// The host.
        host: String,
        /// The line of the `@revoked` entry.
        line: usize,
    },
    /// The host is not in known_hosts and new keys are not accepted.
    #[error("the host key of `{host}` ({fingerprint}) is not in {file}")]
    #[diagnostic(
        code(cairn::ssh::host_key_unknown),
        help(
            "check the fingerprint, then run again with --accept-new-host-keys to record it, or add it with `ssh-keyscan`"
        )
    )]
    HostKeyUnknown {
        /// The known_hosts file.
        file: PathBuf,
        /// The fingerprint the host offered.
        fingerprint: String,
        /// The host.
        host: String,
    },
    /// The host sent no key, or one cairn cannot name.
    #[error("`{host}` offered no usable host key")]
    #[diagnostic(code(cairn::ssh::no_host_key))]
    NoHostKey {
        /// The host.
        host: String,
    },
    /// known_hosts or the SSH configuration cannot be read or written.
    #[error("{action} {path}: {reason}")]
    #[diagnostic(code(cairn::ssh::config))]
    File {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why it failed.
        reason: String,
    },
    /// The host's fence folder cannot keep the fence (in memory, not writable), or an ESXi
    /// host has no datastore named for it: nothing may run on the host unfenced.
    #[error("the fence of `{host}` cannot be kept: {said}")]
    #[diagnostic(code(cairn::ssh::fence_place), help("{help}"))]
    FencePlace {
        /// The host.
        host: String,
        /// What the fence said (`cairn-fence: ...`), or why cairn refused.
        said: String,
        /// What to set in the inventory.
        help: String,
    },
    /// A setting of the inventory that cannot work (an empty command, a relative upload path).
    #[error("{0}")]
    #[diagnostic(code(cairn::ssh::invalid))]
    Invalid(String),
}

impl SshError {
    /// This error as a transport error: the message in the context, the typed error as the
    /// source.
    pub fn into_transport(self) -> crate::TransportError {
        crate::TransportError::Io {
            context: self.to_string(),
            source: std::io::Error::other(self),
        }
    }
}
