//! What a run reports as it goes: the progress display and `--json` read these. The JSON form
//! is documented in docs/events.md and checked against docs/events.schema.json.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::journal::{HostStatus, now_millis};

/// The version of the `--json` event stream; raised when a field changes meaning or goes.
pub const EVENTS_SCHEMA_VERSION: u32 = 1;

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    /// A run or resume started: sent once, before any host acts.
    RunStarted {
        /// Check mode: nothing is changed and no run is recorded.
        check: bool,
        /// The hosts, in inventory order.
        hosts: Vec<String>,
        /// `--param` values, secrets as `<redacted>`.
        params: BTreeMap<String, String>,
        /// Whether this continues recorded journals.
        resume: bool,
        /// The run's id (a check's is not recorded anywhere).
        run_id: String,
        /// The runbook.
        runbook: String,
        /// [`EVENTS_SCHEMA_VERSION`].
        schema: u32,
        /// The runbook's stages, in order of appearance.
        stages: Vec<String>,
    },
    /// An action is about to touch the host (its intent is journaled).
    ActionStarted {
        /// The canonical arguments, secrets redacted.
        arguments: Value,
        /// The builtin.
        builtin: String,
        /// The runbook file of the call.
        file: String,
        /// The host.
        host: String,
        /// The call's runbook line.
        line: u32,
        /// The action's number on this host.
        seq: u64,
        /// The stage it runs in.
        stage: String,
        /// A one-line description of the call, never cut.
        summary: String,
        /// The host's clock runs this many times faster than the wall (a scaled simulated
        /// clock); absent on the wall clock. The status area counts in the host's seconds.
        #[serde(skip_serializing_if = "Option::is_none")]
        clock_scale: Option<u32>,
    },
    /// An action finished (or was answered from the journal).
    ActionFinished {
        /// The canonical arguments, secrets redacted.
        arguments: Value,
        /// The builtin.
        builtin: String,
        /// Whether it changed the host.
        changed: bool,
        /// Milliseconds it took.
        elapsed_ms: u64,
        /// Why it failed.
        error: Option<String>,
        /// The runbook file of the call.
        file: String,
        /// The host.
        host: String,
        /// The call's runbook line.
        line: u32,
        /// Whether it succeeded.
        ok: bool,
        /// Whether the result came from the journal without touching the host.
        replayed: bool,
        /// What the runbook received, secrets redacted; `null` on failure.
        result: Value,
        /// The action's number on this host.
        seq: u64,
        /// The stage it ran in.
        stage: String,
        /// Milliseconds since the Unix epoch when it started.
        started_at: u64,
        /// A one-line description of the call, never cut.
        summary: String,
    },
    /// A command an action ran on the host, with its whole output (`-v`, `-vv`).
    Command {
        /// The program and its arguments.
        argv: Vec<String>,
        /// Its exit status.
        code: i64,
        /// Milliseconds it took.
        elapsed_ms: u64,
        /// The host.
        host: String,
        /// The action that ran it.
        seq: u64,
        /// Standard error, whole.
        stderr: String,
        /// Standard output, whole.
        stdout: String,
    },
    /// A host waits for the disruption budget (`--max-unavailable`) before a reboot or
    /// maintenance mode: `esx05 waits: 2 of 2 unavailable: esx01 rebooting, esx02 maintenance`.
    BudgetWait {
        /// The host that waits.
        host: String,
        /// `reboot` or `maintenance`.
        before: String,
        /// The group whose limit is reached (`--max-unavailable esxi=1`); absent for the run's.
        #[serde(skip_serializing_if = "Option::is_none")]
        group: Option<String>,
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
        /// As in `ActionStarted`: the host's clock's speed against the wall, when scaled.
        #[serde(skip_serializing_if = "Option::is_none")]
        clock_scale: Option<u32>,
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
    /// A host left a stage: it entered the next one, or ended.
    StageFinished {
        /// The host.
        host: String,
        /// Position of the stage (1-based).
        index: u64,
        /// The stage's name.
        name: String,
    },
    /// A host is held back by something other than its own actions: a barrier, a batch, the
    /// disruption budget. The status area shows the reason until the host acts again.
    Waiting {
        /// The host that waits.
        host: String,
        /// What it waits for, e.g. `waiting for esx05 (rebooting)`.
        reason: String,
    },
    /// A stage's hosts are let in batch by batch: this batch starts now.
    BatchStarted {
        /// 1-based number of the batch.
        batch: u64,
        /// How many batches the stage has.
        batches: u64,
        /// The hosts of this batch.
        hosts: Vec<String>,
        /// The stage's name.
        stage: String,
    },
    /// The run ended: the recap.
    RunFinished {
        /// Check mode: nothing was changed and no run was recorded.
        check: bool,
        /// Whether the controller (a runbook's validations) failed.
        controller_failed: bool,
        /// Hosts that finished every stage.
        done: u64,
        /// How the run ended: `succeeded`, `failed`, `error` or `stopped` (by a signal).
        exit: super::exit_status::ExitStatus,
        /// The exit code that says so: 0, 1, 2 or 130.
        exit_code: u8,
        /// Hosts that failed.
        failed: u64,
        /// Why the roll was halted at a failed host (no further batch, no host taken down).
        halted: Option<String>,
        /// What a failed or stopped run left down: hosts in maintenance mode, VMs powered
        /// off, reboots sent and not seen back.
        left_behind: Vec<String>,
        /// Per host, in inventory order.
        recap: Vec<RecapLine>,
        /// `HOST (why)` for each host that still needs a reboot.
        reboot_pending: Vec<String>,
        /// The run's id.
        run_id: String,
        /// Hosts stopped before they finished.
        stopped: u64,
    },
}

/// One host's counts in the recap (Ansible's PLAY RECAP, plus reboots and time).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RecapLine {
    /// Actions that changed the host (in check mode: would have).
    pub changed: u64,
    /// Milliseconds from the host's first event to its last.
    pub elapsed_ms: u64,
    /// Actions that failed.
    pub failed: u64,
    /// The host.
    pub host: String,
    /// Actions that succeeded, changed or not (replayed ones excluded).
    pub ok: u64,
    /// Reboots the host came back from.
    pub rebooted: u64,
    /// How the host ended, once it has.
    pub status: Option<HostStatus>,
}

/// An event with the moment it was sent: what the display and `--json` receive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stamped {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The event.
    #[serde(flatten)]
    pub event: RunEvent,
}

/// What a budget wait shows: `2 of 2 unavailable: esx01 rebooting, esx02 maintenance`.
pub(crate) fn budget_wait_text(group: Option<&str>, limit: usize, holders: &[String]) -> String {
    let of = group.map(|g| format!(" {g}")).unwrap_or_default();
    format!(
        "{} of {limit}{of} unavailable: {}",
        holders.len(),
        holders.join(", ")
    )
}

/// Where events go. Sending never blocks and never fails the run.
#[derive(Debug, Clone)]
pub struct EventSink(Option<std::sync::mpsc::Sender<Stamped>>);

impl EventSink {
    /// Events sent to `sender`.
    pub fn new(sender: std::sync::mpsc::Sender<Stamped>) -> Self {
        Self(Some(sender))
    }

    /// Events dropped.
    pub fn none() -> Self {
        Self(None)
    }

    /// Whether events go anywhere (so a caller can skip building costly ones).
    pub fn is_open(&self) -> bool {
        self.0.is_some()
    }

    /// Sends one event, stamped with the time now.
    pub fn send(&self, event: RunEvent) {
        if let Some(sender) = &self.0 {
            let _ = sender.send(Stamped {
                at: now_millis(),
                event,
            });
        }
    }
}
