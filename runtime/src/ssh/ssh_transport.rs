//! The `ssh` transport: one session per host, kept open and reused, a channel per command.

use std::path::Path;
use std::time::{Duration, Instant};

use ssh2::Session;

use super::sim_serve::{SIMHOST_INTERRUPTED, SIMHOST_UNREACHABLE, SIMHOST_UNREACHABLE_CODE};
use super::ssh_channel::{Failure, run};
use super::ssh_connect::{ConnectError, connect};
use super::ssh_fence::parse_query;
use super::ssh_upload::upload;
use super::{SshOptions, SshTarget};
use crate::fence::StepRecord;
use crate::{Clock, ExecOutput, ExecRequest, Transport, TransportError};

/// Reaches one host over SSH.
pub struct SshTransport {
    /// Whether the fence folder passed its check (`cairn-fence check`) on this host.
    pub(super) fence_checked: bool,
    /// The fence folder's id, as its check answered it (`fence.sh check`).
    pub(super) fence_id: Option<String>,
    idle_since: Instant,
    pub(super) name: String,
    pub(super) options: SshOptions,
    /// A session of its own for asking the fence what it recorded (`fence_record` has only
    /// `&self`): opened at a resume's first question, kept for the next.
    query_session: std::sync::Mutex<Option<Session>>,
    session: Option<Session>,
    target: SshTarget,
}

impl std::fmt::Debug for SshTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshTransport")
            .field("name", &self.name)
            .field("target", &self.target)
            .field("connected", &self.session.is_some())
            .finish_non_exhaustive()
    }
}

impl SshTransport {
    /// A transport for the inventory host `name` at `target`; connects at the first command.
    pub fn new(name: &str, target: SshTarget, options: SshOptions) -> Self {
        Self {
            fence_checked: false,
            fence_id: None,
            idle_since: Instant::now(),
            name: name.to_owned(),
            options,
            query_session: std::sync::Mutex::new(None),
            session: None,
            target,
        }
    }

    /// Whether a session is open.
    pub fn is_connected(&self) -> bool {
        self.session.is_some()
    }

    /// Opens the session now, if none is open.
    pub fn connect(&mut self) -> Result<(), TransportError> {
        self.session()?;
        Ok(())
    }

    /// Copies the local file `local` to the absolute path `remote` over SFTP, unless a file with
    /// the same SHA-256 is already there. `Ok(true)`: copied; `Ok(false)`: already there.
    pub fn upload_file(&mut self, local: &Path, remote: &str) -> Result<bool, TransportError> {
        let remote_sum = self.remote_sha256(remote);
        let host = self.name.clone();
        let session = self.session()?;
        let result = upload(session, local, remote, remote_sum.as_deref());
        if let Err(error) = &result
            && !matches!(error, TransportError::Io { .. })
        {
            self.session = None;
        }
        result.map_err(|error| match error {
            TransportError::Unreachable { reason, .. } => {
                TransportError::Unreachable { host, reason }
            }
            other => other,
        })
    }

    /// The host's `sha256sum` of `remote`, when the host has the command and the file.
    fn remote_sha256(&mut self, remote: &str) -> Option<String> {
        if !remote.starts_with('/') {
            return None;
        }
        let output = self
            .exec(&ExecRequest::new(["sha256sum", remote]))
            .ok()
            .filter(|output| output.code == 0)?;
        let sum = output
            .stdout
            .split_whitespace()
            .next()?
            .to_ascii_lowercase();
        (sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit())).then_some(sum)
    }

    fn session(&mut self) -> Result<&Session, TransportError> {
        if self.session.is_none() {
            let session =
                connect_with_retries(&self.target, &self.options).map_err(|e| match e {
                    ConnectError::Unreachable(reason) | ConnectError::TimedOut(reason) => {
                        self.unreachable(reason)
                    }
                    ConnectError::Refused(error) => error.into_transport(),
                })?;
            self.idle_since = Instant::now();
            self.session = Some(session);
        }
        self.session
            .as_ref()
            .ok_or_else(|| self.unreachable("no session".into()))
    }

    fn unreachable(&self, reason: String) -> TransportError {
        TransportError::Unreachable {
            host: self.name.clone(),
            reason,
        }
    }
}

/// Attempts at opening a session whose connection or handshake timed out, and the pause
/// before each retry: at most `CONNECT_ATTEMPTS` × the connect timeout + 3 s in all. A host
/// that refuses the connection, or a wrong key, is not retried (it would answer the same).
const CONNECT_ATTEMPTS: u32 = 3;
const RETRY_PAUSES: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(2)];

/// Opens a session, trying again after a timeout: a controller paused past the connect
/// timeout while it opened its sessions (SIGSTOP, a laptop that slept) failed every host it
/// was connecting to, though none of them was at fault.
fn connect_with_retries(target: &SshTarget, options: &SshOptions) -> Result<Session, ConnectError> {
    let mut attempt = 1;
    loop {
        match connect(target, options) {
            Err(ConnectError::TimedOut(_)) if attempt < CONNECT_ATTEMPTS => {
                let pause = RETRY_PAUSES[usize::try_from(attempt - 1).unwrap_or(0).min(1)];
                std::thread::sleep(pause);
                attempt += 1;
            }
            Err(ConnectError::TimedOut(reason)) => {
                return Err(ConnectError::TimedOut(format!(
                    "{reason} ({CONNECT_ATTEMPTS} attempts, each within the connect timeout)"
                )));
            }
            other => return other,
        }
    }
}

impl SshTransport {
    /// Runs the command line `line` for `request` (its input, timeout and interrupt).
    pub(super) fn exec_line(
        &mut self,
        line: &str,
        request: &ExecRequest,
    ) -> Result<ExecOutput, TransportError> {
        let line = line.to_owned();
        let command = request.argv.join(" ");
        let mut fresh = self.session.is_none();
        loop {
            let idle = self.idle_since.elapsed();
            let keepalive = self.target.keepalive;
            let session = self.session()?;
            let result = run(session, &line, request, idle, keepalive);
            self.idle_since = Instant::now();
            match result {
                Ok(output) => return self.sim_host_answer(output, command),
                // A session that died while idle (the host rebooted): the command never left,
                // so a new session may run it, once.
                Err(Failure::NotStarted(_)) if !fresh => {
                    self.session = None;
                    fresh = true;
                }
                Err(Failure::NotStarted(reason)) => {
                    self.session = None;
                    return Err(self.unreachable(reason));
                }
                Err(Failure::Interrupted) => {
                    self.session = None;
                    return Err(TransportError::Interrupted {
                        command,
                        host: self.name.clone(),
                    });
                }
                Err(Failure::Stopped) => {
                    self.session = None;
                    return Err(TransportError::Stopped {
                        command,
                        host: self.name.clone(),
                    });
                }
                Err(Failure::TimedOut) => {
                    // The remote command may still run; a new session starts clean.
                    self.session = None;
                    return Err(TransportError::TimedOut {
                        command,
                        host: self.name.clone(),
                        seconds: request.timeout.map_or(0, |limit| limit.as_secs()),
                    });
                }
            }
        }
    }
}

/// `error` as the refusal of host `host` before its first action, with its help.
pub(super) fn refused(host: &str, error: &super::SshError) -> TransportError {
    use miette::Diagnostic;
    TransportError::Refused {
        host: host.to_owned(),
        reason: error.to_string(),
        help: error.help().map(|help| help.to_string()),
    }
}

impl Transport for SshTransport {
    fn exec(&mut self, request: &ExecRequest) -> Result<ExecOutput, TransportError> {
        let line = self.line_for(request)?;
        self.exec_line(&line, request)
    }

    /// Opens the session (one attempt: a host that is down is the runbook's to meet, a reboot
    /// wait may expect it) so that a host key or login refused is the host's refusal, not its
    /// first action failing; and, when `fenced`, checks the fence folder.
    fn prepare(&mut self, fenced: bool) -> Result<(), TransportError> {
        if self.session.is_none() {
            match connect(&self.target, &self.options) {
                Ok(session) => {
                    self.idle_since = Instant::now();
                    self.session = Some(session);
                }
                Err(ConnectError::Refused(error)) => return Err(refused(&self.name, &error)),
                Err(ConnectError::Unreachable(_) | ConnectError::TimedOut(_)) => return Ok(()),
            }
        }
        if !fenced {
            return Ok(());
        }
        match self.check_fence() {
            Err(error @ TransportError::Refused { .. }) => Err(error),
            // Down or dropped: the check is made again before the first fenced command.
            _ => Ok(()),
        }
    }

    fn fence_folder(&self) -> Option<crate::FenceFolder> {
        Some(crate::FenceFolder {
            id: self.fence_id.clone()?,
            dir: self.options.fence.dir()?.to_owned(),
        })
    }

    fn fence_record(&self, step: &str) -> Result<Option<StepRecord>, TransportError> {
        let Some(line) = self
            .options
            .fence
            .query_line(step, self.options.become_root)
            .map_err(super::SshError::into_transport)?
        else {
            return Ok(None);
        };
        let mut held = self
            .query_session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if held.is_none() {
            let session =
                connect_with_retries(&self.target, &self.options).map_err(|e| match e {
                    ConnectError::Unreachable(reason) | ConnectError::TimedOut(reason) => {
                        self.unreachable(reason)
                    }
                    ConnectError::Refused(error) => refused(&self.name, &error),
                })?;
            *held = Some(session);
        }
        let request = ExecRequest {
            timeout: Some(Duration::from_secs(60)),
            ..ExecRequest::new(["cairn-fence", "query", step])
        };
        let answer = match held.as_ref() {
            Some(session) => run(session, &line, &request, Duration::ZERO, Duration::MAX),
            None => Err(Failure::NotStarted("no session".into())),
        };
        match answer {
            Ok(output) if output.code == SIMHOST_UNREACHABLE_CODE => {
                *held = None;
                Err(self.unreachable(output.stderr.trim().to_owned()))
            }
            Ok(output) => Ok(parse_query(&output)),
            Err(_) => {
                *held = None;
                Err(self.unreachable(format!(
                    "the connection failed while asking the fence about step {step}"
                )))
            }
        }
    }

    fn clock(&self) -> Clock {
        Clock::Real
    }

    fn disconnect(&mut self) {
        if let Some(session) = self.session.take() {
            session.set_timeout(1000);
            let _ = session.disconnect(None, "cairn disconnects", None);
        }
    }

    fn describe(&self) -> String {
        format!(
            "ssh://{}@{}:{}",
            self.target.user, self.target.host_name, self.target.port
        )
    }

    fn upload(&mut self, local: &Path, remote: &str) -> Result<bool, TransportError> {
        self.upload_file(local, remote)
    }

    /// `true` run under the fence at `epoch` as its own step (`claim.EPOCH`): the fence
    /// raises its epoch as for any fenced command, and answers 241 if it has seen a higher
    /// one. An unfenced host (`fence = false`) runs nothing.
    fn fence_claim(&mut self, epoch: u64, owner: &str) -> Result<(), TransportError> {
        if self.options.fence == super::ssh_fence::FenceSetting::Off {
            return Ok(());
        }
        let request = ExecRequest {
            fence: Some(crate::fence::FenceStep {
                epoch,
                owner: owner.to_owned(),
                step: crate::fence::claim_step(epoch),
            }),
            timeout: Some(Duration::from_secs(60)),
            ..ExecRequest::new(["true"])
        };
        let output = self.exec(&request)?;
        if i32::try_from(output.code) == Ok(crate::fence::FENCED_EXIT) {
            let said = output.stderr.trim().trim_start_matches("cairn-fence: ");
            return Err(crate::fence::claim_refused(&self.name, said.to_owned()));
        }
        Ok(())
    }

    /// `fence.sh prune` at `epoch` by `owner`: answers `pruned N`, or 241 when another owner
    /// holds the host now.
    fn fence_prune(&mut self, epoch: u64, owner: &str, run: &str) -> Result<u64, TransportError> {
        let Some(line) = self
            .options
            .fence
            .prune_line(epoch, owner, run, self.options.become_root)
            .map_err(super::SshError::into_transport)?
        else {
            return Ok(0);
        };
        let request = ExecRequest {
            timeout: Some(Duration::from_secs(60)),
            ..ExecRequest::new(["cairn-fence", "prune", run])
        };
        let output = self.exec_line(&line, &request)?;
        let said = || {
            output
                .stderr
                .trim()
                .trim_start_matches("cairn-fence: ")
                .to_owned()
        };
        match crate::fence::pruned_steps(&output.stdout) {
            Some(pruned) if output.code == 0 => Ok(pruned),
            _ => Err(crate::fence::prune_refused(&self.name, said())),
        }
    }

    /// The machine, not the login: two users of one host share its lease.
    fn identity(&self) -> Option<String> {
        Some(format!(
            "ssh://{}:{}",
            self.target.host_name.to_ascii_lowercase(),
            self.target.port
        ))
    }
}

impl SshTransport {
    /// A simulated host behind sshd (`cairn-simhost`) says, with exit 255 and a marked line on
    /// standard error, that it is down or that the connection "dropped"; a real host never
    /// prints these lines.
    fn sim_host_answer(
        &mut self,
        output: ExecOutput,
        command: String,
    ) -> Result<ExecOutput, TransportError> {
        if output.code != SIMHOST_UNREACHABLE_CODE {
            return Ok(output);
        }
        if let Some(reason) = output.stderr.strip_prefix(SIMHOST_UNREACHABLE) {
            self.session = None;
            return Err(self.unreachable(reason.trim().to_owned()));
        }
        if output.stderr.starts_with(SIMHOST_INTERRUPTED) {
            self.session = None;
            return Err(TransportError::Interrupted {
                command,
                host: self.name.clone(),
            });
        }
        Ok(output)
    }
}
