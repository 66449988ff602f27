//! The `ssh` transport, on libssh2 (the `ssh2` crate): one session per host kept open and reused,
//! a channel per command, argv quoted into one command line, `~/.ssh/config`, known_hosts
//! (strict by default), agent, key file or password authentication, `sudo` for non-root users,
//! SFTP upload with a checksum skip; every changing command run under the host's fence
//! (`ssh_fence.rs`); and what `cairn-simhost` needs to serve a simulated host
//! behind a real sshd. See `docs/ssh.md`.
//!
//! It also raises the open-file limit of every run (`fd_limit.rs`) and reaches a host through a
//! ProxyJump host (`proxy_jump.rs`).

mod command_line;
mod fd_limit;
mod known_hosts;
mod login_secret;
mod private_key;
mod proxy_jump;
mod sim_serve;
mod ssh_channel;
mod ssh_connect;
mod ssh_error;
mod ssh_fence;
mod ssh_fence_calls;
mod ssh_options;
mod ssh_target;
mod ssh_transport;
mod ssh_upload;
#[cfg(test)]
mod tests;

pub use command_line::{SUDO, command_line};
pub use fd_limit::{
    FDS_PER_FORK, FDS_PER_HOST, FDS_PER_JOURNAL, FDS_RESERVE, FdDemand, FdLimitError,
    prepare_fd_limit,
};
pub use known_hosts::{KnownHosts, fingerprint, key_type, lookup_name};
pub use sim_serve::{
    FenceCall, SIMHOST_INTERRUPTED, SIMHOST_UNREACHABLE, SIMHOST_UNREACHABLE_CODE, SIMHOST_USAGE,
    SimRequest, SimServe,
};
pub use ssh_error::SshError;
pub use ssh_fence::FenceSetting;
pub use ssh_options::{PasswordPrompt, SshOptions, VaultSecret};
pub use ssh_target::SshTarget;
pub use ssh_transport::SshTransport;
