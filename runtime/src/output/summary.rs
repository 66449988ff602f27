//! The last line of a run (`run ID: 9 done, 0 failed, 0 stopped`) and the `run_finished`
//! event, from the run's report and its recap. A check is never presented as a recorded run.

use crate::journal::HostStatus;
use crate::{CONTROLLER, RunEvent, RunReport};

use super::{ExitStatus, Recap};

/// How a run ended, counted over its hosts (the controller is no host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Whether the controller (a runbook's validations) failed.
    pub controller_failed: bool,
    /// Hosts that finished.
    pub done: u64,
    /// Hosts that failed.
    pub failed: u64,
    /// Why the roll was halted, if it was.
    pub halted: Option<String>,
    /// What the run left down (`esx02 in maintenance mode`).
    pub left_behind: Vec<String>,
    /// `HOST (why)` per host that still needs a reboot.
    pub reboot_pending: Vec<String>,
    /// Whether some host's failure is the runbook's fault (exit 2, as `cairn check`).
    pub runbook_error: bool,
    /// Hosts stopped before they finished.
    pub stopped: u64,
}

impl Summary {
    /// Counts `report`.
    pub fn of(report: &RunReport) -> Self {
        let count = |status| {
            report
                .hosts
                .iter()
                .filter(|h| h.status == status && h.name != CONTROLLER)
                .count() as u64
        };
        Self {
            controller_failed: report
                .hosts
                .iter()
                .any(|h| h.name == CONTROLLER && h.status == HostStatus::Failed),
            done: count(HostStatus::Done),
            failed: count(HostStatus::Failed),
            halted: report.halted.clone(),
            left_behind: report.left_behind(),
            reboot_pending: report
                .hosts
                .iter()
                .filter_map(|h| {
                    h.reboot_pending
                        .as_ref()
                        .map(|why| format!("{} ({why})", h.name))
                })
                .collect(),
            runbook_error: report
                .hosts
                .iter()
                .any(|h| h.failure.as_ref().is_some_and(|f| f.runbook_error())),
            stopped: count(HostStatus::Cancelled),
        }
    }

    /// `run ID: N done, N failed, N stopped...`; for a check, `check: ... (check mode: nothing
    /// was changed)` with no run id, since nothing was recorded.
    pub fn line(&self, run_id: &str, check: bool) -> String {
        let head = if check {
            "check".to_owned()
        } else {
            format!("run {run_id}")
        };
        let mut line = format!(
            "{head}: {} done, {} failed, {} stopped",
            self.done, self.failed, self.stopped
        );
        if self.controller_failed {
            line.push_str("; the controller failed");
        }
        if let Some(reason) = &self.halted {
            line.push_str(&format!(
                "; the roll stopped at the first failed host ({reason}): {}",
                crate::halt::HOW_TO_GO_ON
            ));
        }
        if !self.reboot_pending.is_empty() {
            let verb = if check { "would need" } else { "still need" };
            line.push_str(&format!(
                "; {verb} a reboot: {}",
                self.reboot_pending.join(", ")
            ));
        }
        if check {
            line.push_str(" (check mode: nothing was changed)");
        }
        line
    }

    /// `left down: esx02 in maintenance mode, ...`, when the run left something down.
    pub fn left_behind_line(&self) -> Option<String> {
        (!self.left_behind.is_empty())
            .then(|| format!("left down: {}", self.left_behind.join("; ")))
    }

    /// How the run ended: stopped when a signal (`signalled`) left some host unfinished; else
    /// a runbook error before a host's failure, as `cairn check` would exit.
    pub fn exit_status(&self, succeeded: bool, signalled: bool) -> ExitStatus {
        if signalled && self.stopped > 0 {
            ExitStatus::Stopped
        } else if self.runbook_error {
            ExitStatus::Error
        } else if succeeded {
            ExitStatus::Succeeded
        } else {
            ExitStatus::Failed
        }
    }

    /// The `run_finished` event: these counts, the recap's lines and how the run ended.
    pub fn event(&self, run_id: &str, check: bool, recap: &Recap, exit: ExitStatus) -> RunEvent {
        RunEvent::RunFinished {
            check,
            controller_failed: self.controller_failed,
            done: self.done,
            exit,
            exit_code: exit.code(),
            failed: self.failed,
            halted: self.halted.clone(),
            left_behind: self.left_behind.clone(),
            recap: recap.lines(),
            reboot_pending: self.reboot_pending.clone(),
            run_id: run_id.to_owned(),
            stopped: self.stopped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ExitStatus, Summary};
    use crate::journal::HostStatus;
    use crate::{HostReport, RunReport};

    fn report(statuses: &[HostStatus]) -> RunReport {
        let hosts = statuses
            .iter()
            .enumerate()
            .map(|(i, status)| HostReport {
                changes: Vec::new(),
                failure: None,
                left_behind: Vec::new(),
                name: format!("node{i}"),
                prediction_stopped: None,
                reboot_pending: None,
                status: *status,
            })
            .collect();
        RunReport {
            halted: None,
            hosts,
            run_id: "1".into(),
        }
    }

    fn exit(statuses: &[HostStatus], signalled: bool) -> ExitStatus {
        let report = report(statuses);
        Summary::of(&report).exit_status(report.succeeded(), signalled)
    }

    #[test]
    fn a_signal_that_left_hosts_unfinished_is_a_stop_not_a_failure() {
        use HostStatus::{Cancelled, Done, Failed};
        assert_eq!(exit(&[Done, Done], false), ExitStatus::Succeeded);
        assert_eq!(exit(&[Done, Failed], false), ExitStatus::Failed);
        assert_eq!(exit(&[Failed, Cancelled], true), ExitStatus::Stopped);
        // --max-fail-percent stops hosts too, but that is the failure's doing.
        assert_eq!(exit(&[Failed, Cancelled], false), ExitStatus::Failed);
        // A signal after every host finished changes nothing.
        assert_eq!(exit(&[Done, Done], true), ExitStatus::Succeeded);
    }
}
