//! One line of a host's journal.
//!
//! Every line is `{"type": "...", "data": {...}}`. The format is documented with an example per
//! type in `docs/journal.md`; `at` is the only field that holds wall-clock time.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The version written in every header; a reader refuses journals from a newer format.
pub const JOURNAL_VERSION: u32 = 1;

/// A journal record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum JournalEvent {
    /// The host's batch of a rolling stage started.
    Batch(BatchRecord),
    /// What the operator chose in the debugger for a failed action: retry, skip or abort.
    Debug(DebugRecord),
    /// The operator's answer for an action whose outcome was unknown.
    Decision(DecisionRecord),
    /// The host left the run: done, failed or stopped.
    HostEnd(HostEndRecord),
    /// The first line: what was run, with which parameters, on which hosts.
    Header(RunHeader),
    /// An action is about to run. Written and fsynced before the host is touched.
    Intent(IntentRecord),
    /// The run took the host's lease from a holder that died holding it.
    Lease(LeaseRecord),
    /// A line the runbook logged.
    Log(LogRecord),
    /// What an action did. Written and fsynced after it finished.
    Outcome(OutcomeRecord),
    /// A step inside a long action (a reboot's old boot id), so a resume can continue it.
    Progress(ProgressRecord),
    /// The run was resumed from here.
    Resume(ResumeRecord),
    /// Forget the actions from `seq` on: the runbook will run them again.
    Rewind(RewindRecord),
    /// The host entered a stage.
    Stage(StageRecord),
    /// The host waited for the disruption budget (`--max-unavailable`).
    Wait(WaitRecord),
}

/// The host's lease was taken over from a run whose process ended while it held it (killed,
/// crashed): that run may have left an action open, which its own resume settles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaseRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// Who held it.
    pub taken_over_from: crate::lease_holder::Holder,
}

/// The host began waiting for room in the disruption budget before a reboot or maintenance
/// mode; the action it waited for follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// `reboot` or `maintenance`.
    pub before: String,
    /// Who held the budget and why (`esx01 rebooting`).
    pub holders: Vec<String>,
    /// The budget.
    pub limit: usize,
}

/// The first record of every host journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// This host's name.
    pub host: String,
    /// Every host of the run, in inventory order.
    pub hosts: Vec<String>,
    /// The inventory file.
    pub inventory: String,
    /// Parameters given on the command line; secret ones are `"<redacted>"`.
    pub params: BTreeMap<String, String>,
    /// The run's id, the name of its folder.
    pub run_id: String,
    /// The runbook file.
    pub runbook: String,
    /// SHA-256 of the runbook text, hex.
    pub runbook_hash: String,
    /// [`JOURNAL_VERSION`].
    pub version: u32,
}

/// An action about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntentRecord {
    /// Canonical arguments (JSON), secrets redacted.
    pub args: Value,
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The builtin, e.g. `run`, `reboot`, `mlxconfig::set`.
    pub builtin: String,
    /// Column of the call in `file` (1-based).
    pub column: u32,
    /// The runbook or module file that made the call.
    pub file: String,
    /// Line of the call in `file` (1-based).
    pub line: u32,
    /// Position of the action inside its stage (1-based).
    pub ordinal: u64,
    /// How a resume settles it without an outcome: `redo`, `probe` or `ask`.
    pub reconcile: String,
    /// Position of the action in this host's run (1-based); replay matches on it.
    pub seq: u64,
    /// The stage's name.
    pub stage: String,
    /// Position of the stage in this host's run (1-based).
    pub stage_index: u64,
}

/// What an action did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutcomeRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// Whether the action changed the host.
    pub changed: bool,
    /// How long it took, in milliseconds.
    pub elapsed_ms: u64,
    /// Why it failed, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How the outcome was learned when it was not observed: `probe` or `assumed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    /// Whether it succeeded. A failed action runs again on resume.
    pub ok: bool,
    /// Whether the host needs a reboot for the change to take effect.
    pub reboot_required: bool,
    /// The value the builtin returned (JSON), secrets redacted.
    pub result: Value,
    /// Where `result` held a secret, by the secret's name (absent when it held none, and in
    /// older journals): a resume given the secrets again replays what the runbook read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<crate::secrets::SecretMark>,
    /// The intent this answers.
    pub seq: u64,
}

/// A step inside a long action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// What the step recorded.
    pub data: Value,
    /// The intent this belongs to.
    pub seq: u64,
}

/// What the operator chose for an action whose outcome was unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// `done` (record it as done without running it) or `redo` (run it again).
    pub assume: Assume,
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The intent this answers.
    pub seq: u64,
}

/// What the operator chose in the debugger after an action failed.
///
/// A skip is also recorded as the action's outcome (`ok: true`, `how: "skipped"`, the given
/// value as `result`), so replay needs nothing from this record; it says who decided what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DebugRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// `retry`, `skip` or `abort`.
    pub choice: DebugChoice,
    /// The failed action.
    pub seq: u64,
    /// The value a skipped action returns (JSON), secrets redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// The debugger's answers to a failed action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DebugChoice {
    /// Fail the host, as without the debugger.
    Abort,
    /// Run the action again.
    Retry,
    /// Record the action as done with a value the operator gave.
    Skip,
}

/// An operator's answer for an action with an intent and no outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assume {
    /// The action happened: record it as done.
    Done,
    /// The action did not happen: run it again.
    Redo,
}

/// How a host left the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostEndRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// Column (1-based) in `file` of what failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The error, for a failed host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The runbook or module file of what failed, when the failure points into one (older
    /// journals lack it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Line (1-based) in `file` of what failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Why the host still needs a reboot, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reboot_pending: Option<String>,
    /// How it ended.
    pub status: HostStatus,
}

/// How a host's part of a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostStatus {
    /// The run was stopped before this host finished.
    Cancelled,
    /// Every stage finished.
    Done,
    /// An action or expectation failed.
    Failed,
}

/// A line the runbook logged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The text.
    pub message: String,
    /// The stage it was logged in, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
}

/// The run was resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
}

/// Actions from `seq` on are forgotten and will run again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewindRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The first forgotten action.
    pub seq: u64,
}

/// The host's batch of a rolling stage (`serial N`) started: the previous batch had finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The batch, 1-based.
    pub batch: usize,
    /// The batch's hosts, in inventory order.
    pub hosts: Vec<String>,
    /// Position of the stage in this host's run (1-based).
    pub index: u64,
    /// How many batches the stage has.
    pub of: usize,
    /// The stage's name.
    pub stage: String,
}

/// The host entered a stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRecord {
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    /// The stage's group.
    pub group: String,
    /// Position of the stage in this host's run (1-based).
    pub index: u64,
    /// Whether this host runs the stage's block.
    pub member: bool,
    /// The stage's name.
    pub name: String,
    /// A pipelined stage's var (`after VAR`): the host waited only for the hosts it names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// The hosts a pipelined stage waited for (empty at a barrier, or when the host has no
    /// such var and waited for every host).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waited_for: Vec<String>,
}
