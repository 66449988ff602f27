//! What a run reports as it goes: the progress display and `--json` read these.

use serde::Serialize;

use crate::journal::HostStatus;

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// An action finished (or was answered from the journal).
    ActionFinished {
        /// The builtin.
        builtin: String,
        /// Whether it changed the host.
        changed: bool,
        /// Milliseconds it took.
        elapsed_ms: u64,
        /// The host.
        host: String,
        /// Whether it succeeded.
        ok: bool,
        /// Whether the result came from the journal without touching the host.
        replayed: bool,
        /// A short description of the call.
        summary: String,
    },
    /// A batch of a rolling stage (`serial N`) started: its hosts run the block now.
    BatchStarted {
        /// The batch, 1-based.
        batch: usize,
        /// Its hosts, in inventory order.
        hosts: Vec<String>,
        /// Position of the stage (1-based).
        index: u64,
        /// How many batches the stage has.
        of: usize,
        /// The stage's name.
        stage: String,
    },
    /// A host waits for the disruption budget (`--max-unavailable`) before a reboot or
    /// maintenance mode: `esx05 waits: 2 of 2 unavailable: esx01 rebooting, esx02 maintenance`.
    BudgetWait {
        /// The host that waits.
        host: String,
        /// `reboot` or `maintenance`.
        before: String,
        /// The budget.
        limit: usize,
        /// Who holds it and why (`esx01 rebooting`).
        holders: Vec<String>,
    },
    /// A host left the run.
    HostFinished {
        /// The error of a failed host, one line.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The host.
        host: String,
        /// Why the host still needs a reboot, if it does.
        #[serde(skip_serializing_if = "Option::is_none")]
        reboot_pending: Option<String>,
        /// How it ended.
        status: HostStatus,
    },
    /// A runbook `log` line.
    Log {
        /// The host.
        host: String,
        /// The text.
        message: String,
    },
    /// A host went down for a reboot and is being waited for.
    Rebooting {
        /// The host.
        host: String,
    },
    /// A host came back from a reboot with a new boot id.
    Rebooted {
        /// The host.
        host: String,
        /// Milliseconds, on the host's clock, from the reboot command to the new boot.
        waited_ms: u64,
    },
    /// Something the operator should know that does not stop the run.
    Warning {
        /// The host.
        host: String,
        /// What happened.
        message: String,
    },
    /// A host entered a stage.
    StageStarted {
        /// The host.
        host: String,
        /// Position of the stage (1-based).
        index: u64,
        /// Whether the host runs this stage's block.
        member: bool,
        /// The stage's name.
        name: String,
    },
}

/// Where events go. Sending never blocks and never fails the run.
#[derive(Debug, Clone)]
pub struct EventSink(Option<std::sync::mpsc::Sender<RunEvent>>);

impl EventSink {
    /// Events sent to `sender`.
    pub fn new(sender: std::sync::mpsc::Sender<RunEvent>) -> Self {
        Self(Some(sender))
    }

    /// Events dropped.
    pub fn none() -> Self {
        Self(None)
    }

    /// Sends one event.
    pub fn send(&self, event: RunEvent) {
        if let Some(sender) = &self.0 {
            let _ = sender.send(event);
        }
    }
}
