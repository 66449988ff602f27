//! How the runtime reaches a host: run a command, and tell time on the host's clock.

use std::path::Path;
use std::time::Duration;

use crate::{Clock, TransportError};

/// One command for a host: the argument vector, never a shell string.
#[derive(Debug, Clone, Default)]
pub struct ExecRequest {
    /// The program and its arguments, each reaching the host as one literal argument.
    pub argv: Vec<String>,
    /// Text written to the command's standard input.
    pub stdin: Option<String>,
    /// How long the command may run before it is reported as timed out.
    pub timeout: Option<Duration>,
    /// Stops the command while it runs (the REPL's Ctrl-C): the transport kills it or closes
    /// its channel. A run's own stop lets a command finish instead, so runs leave it `None`.
    pub interrupt: Option<crate::Cancel>,
    /// Set for a changing command (one of a journaled action): the host runs it under its fence
    /// at the lease's epoch, as this step (docs/fleet.md, "Fencing on the host").
    pub fence: Option<crate::fence::FenceStep>,
}

impl ExecRequest {
    /// A request for `argv` with no input and no timeout.
    pub fn new<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            argv: argv.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }
}

/// What a finished command left behind.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExecOutput {
    /// The exit status; 128 + N for a command killed by signal N.
    pub code: i64,
    /// Standard error, lossily decoded as UTF-8.
    pub stderr: String,
    /// Standard output, lossily decoded as UTF-8.
    pub stdout: String,
}

/// A host's fence folder, as its check found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceFolder {
    /// The id the fence keeps in the folder (`DIR/id`).
    pub id: String,
    /// The folder, as the inventory gave it.
    pub dir: String,
}

/// A way to reach one host. Implementations: local, sim (and ssh).
///
/// Every method blocks; the executor calls them from the host's own thread.
pub trait Transport: Send {
    /// Runs one command to completion.
    ///
    /// A command that ran and failed is `Ok` with a non-zero code; `Err` means the host could
    /// not be reached or the command's fate is unknown (a dropped connection).
    fn exec(&mut self, request: &ExecRequest) -> Result<ExecOutput, TransportError>;

    /// The clock that reboot waits and backoff on this host use.
    fn clock(&self) -> Clock;

    /// Drops any open connection, so the next command reconnects (after a reboot).
    fn disconnect(&mut self) {}

    /// A short description for messages, e.g. `sim:linux` or `ssh://root@node01:22`.
    fn describe(&self) -> String;

    /// What the host is, whatever the inventory calls it, for its lease: two runs whose
    /// inventories reach one machine must meet on one lease (`ssh://node01:22`, the simulated
    /// host's state folder). `None`: nothing to lease (a host that cannot be reached at all).
    fn identity(&self) -> Option<String> {
        Some(self.describe())
    }

    /// Before the host's first action: what would refuse the host anyway (a changed host key,
    /// a fence folder that cannot keep the fence when `fenced`) as a
    /// [`TransportError::Refused`]; a host that is down is not refused here (its runbook may
    /// wait for it). The SSH transport's; others have nothing to check.
    fn prepare(&mut self, fenced: bool) -> Result<(), TransportError> {
        let _ = fenced;
        Ok(())
    }

    /// The fence folder this host's [`Transport::prepare`] found: its id (which the fence keeps
    /// in it) and its path. Two hosts of one run with one id are one folder: two names of one
    /// machine, or a folder on a file system both see. `None` before a check, or unfenced.
    fn fence_folder(&self) -> Option<FenceFolder> {
        None
    }

    /// What the host's fence recorded of step `step` (`fence.sh query`), for settling an open
    /// intent on resume. `None`: this transport does not fence its commands, so nothing is known.
    fn fence_record(&self, step: &str) -> Result<Option<crate::fence::StepRecord>, TransportError> {
        let _ = step;
        Ok(None)
    }

    /// Raises the host fence's epoch to `epoch` for `owner` before the host's first action, so
    /// that a controller this run took the host over from is refused by the host itself from
    /// now on, not only once this run's first command reaches it. A refusal (the host saw a
    /// higher epoch) is [`crate::fence::claim_refused`]; unfenced transports do nothing.
    fn fence_claim(&mut self, epoch: u64, owner: &str) -> Result<(), TransportError> {
        let _ = (epoch, owner);
        Ok(())
    }

    /// Removes run `run`'s step records from the host's fence (`fence.sh prune`) at `epoch` by
    /// `owner`, once the host's part of the run ended done and journaled: every outcome is in
    /// the journal, so no resume will ask the fence about them. Answers how many steps went; a
    /// refusal (another owner holds the host now) removes nothing. Unfenced transports do
    /// nothing.
    fn fence_prune(&mut self, epoch: u64, owner: &str, run: &str) -> Result<u64, TransportError> {
        let _ = (epoch, owner, run);
        Ok(0)
    }

    /// Copies the local file `local` to the absolute path `remote` on the host, unless the host
    /// already has a file there with the same SHA-256: `Ok(true)` when copied, `Ok(false)` when
    /// skipped. Transports that cannot copy files say so.
    fn upload(&mut self, local: &Path, remote: &str) -> Result<bool, TransportError> {
        Err(TransportError::Io {
            context: format!(
                "cannot upload `{}` to `{remote}` on {}",
                local.display(),
                self.describe()
            ),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this transport does not upload files",
            ),
        })
    }
}
