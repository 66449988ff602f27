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
    /// What it was left with down (`esx02 in maintenance mode`), after a failed or stopped run.
    pub left_behind: Vec<String>,
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
            left_behind: Vec::new(),
            name,
            prediction_stopped: None,
            reboot_pending: None,
            status: HostStatus::Failed,
        }
    }

    /// Reads what the host's journal at `path` says it was left with down; a reboot sent
    /// and not seen back is no reboot still needed, and staged changes are listed there. A journal that cannot be read leaves
    /// the report as it is (its failure says why).
    pub(crate) fn leave_behind(&mut self, path: &std::path::Path) {
        let Ok(journal) = crate::journal::HostJournal::load(path, false) else {
            return;
        };
        let left = crate::left_behind::left_behind(&self.name, &journal);
        // A reboot already sent is not one still needed, and changes staged for the next boot
        // are said in the list, not twice.
        if left.iter().any(|l| {
            matches!(
                l,
                crate::left_behind::LeftDown::Rebooting(_)
                    | crate::left_behind::LeftDown::Staged(..)
            )
        }) {
            self.reboot_pending = None;
        }
        self.left_behind = left.iter().map(ToString::to_string).collect();
    }
}

/// How a run ended, host by host.
#[derive(Debug)]
pub struct RunReport {
    /// Why the roll was halted at a failed host, if it was.
    pub halted: Option<String>,
    /// Every instance, controller last.
    pub hosts: Vec<HostReport>,
    /// The run's id.
    pub run_id: String,
}

impl RunReport {
    /// What the run left down, host by host in the report's order.
    pub fn left_behind(&self) -> Vec<String> {
        self.hosts
            .iter()
            .flat_map(|h| h.left_behind.iter().cloned())
            .collect()
    }

    /// Whether every host finished.
    pub fn succeeded(&self) -> bool {
        self.hosts.iter().all(|h| h.status == HostStatus::Done)
    }
}
