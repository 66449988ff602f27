//! How a run ended, host by host: what the executor returns and the summary line counts.

use crate::HostFailure;
use crate::journal::HostStatus;

/// How one host's part ended.
#[derive(Debug)]
pub struct HostReport {
    /// The actions that changed the host (in check mode: that would), as one-line summaries.
    pub changes: Vec<String>,
    /// Why it failed.
    pub failure: Option<HostFailure>,
    /// The host.
    pub name: String,
    /// In check mode, where and why its prediction stopped: an `expect` that failed on
    /// what check mode could not know.
    pub prediction_stopped: Option<String>,
    /// Why it still needs a reboot, if it does.
    pub reboot_pending: Option<String>,
    /// How it ended.
    pub status: HostStatus,
}

impl HostReport {
    /// A host whose thread could not be started: failed before it ran anything.
    pub(crate) fn not_started(name: String, error: &std::io::Error) -> Self {
        Self {
            changes: Vec::new(),
            failure: Some(HostFailure::message(
                &name,
                format!("cannot start a thread: {error}"),
            )),
            name,
            prediction_stopped: None,
            reboot_pending: None,
            status: HostStatus::Failed,
        }
    }
}

/// How a run ended, host by host.
#[derive(Debug)]
pub struct RunReport {
    /// Every instance, controller last.
    pub hosts: Vec<HostReport>,
    /// The run's id.
    pub run_id: String,
}

impl RunReport {
    /// Whether every host finished.
    pub fn succeeded(&self) -> bool {
        self.hosts.iter().all(|h| h.status == HostStatus::Done)
    }
}
