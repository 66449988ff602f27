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
