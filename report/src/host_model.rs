//! One host's part of a run, as its journal tells it: counts for the recap, stage spans and
//! reboots for the timeline, the failure and every recorded action for the other sections.

use std::collections::{BTreeSet, HashMap};

use cairn_runtime::journal::{
    HostEndRecord, HostJournal, HostStatus, IntentRecord, JournalEvent, OutcomeRecord,
};
use serde_json::Value;

/// A host's counts in the recap, as Ansible's PLAY RECAP counts them: `ok` is every action
/// that succeeded (the changed ones included), plus the reboots and the time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// Actions that succeeded.
    pub ok: u64,
    /// Of those, the ones that changed the host.
    pub changed: u64,
    /// Actions (or the runbook's expectations) that failed.
    pub failed: u64,
    /// Reboots the host went through.
    pub rebooted: u64,
}

/// One stage this host ran, from its `stage` record to the next record that ends it.
#[derive(Debug, Clone, PartialEq)]
pub struct StageSpan {
    /// The stage's name.
    pub name: String,
    /// Milliseconds since the Unix epoch.
    pub start: u64,
    /// When the next stage (or the host's end) began.
    pub end: u64,
    /// When its last action finished: from then to `end` the host waited for the others.
    pub last_action: Option<u64>,
}

/// A reboot: from its intent to its outcome, and the time the builtin waited for the host.
#[derive(Debug, Clone, PartialEq)]
pub struct RebootSpan {
    /// When the reboot was sent.
    pub start: u64,
    /// When the host was back (or the outcome was recorded).
    pub end: u64,
    /// How long the host took to come back, as the reboot measured it (on its clock, which
    /// for a simulated host may be virtual).
    pub waited_ms: Option<u64>,
}

/// A wait for the disruption budget (`--max-unavailable`): from its `wait` record to the
/// host's next record, when it had its place.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetWaitSpan {
    /// When the host began to wait.
    pub start: u64,
    /// When its next record was written.
    pub end: u64,
    /// What it waited to do and who held the budget (`reboot: 1 of 1 unavailable: esx01 maintenance`).
    pub reason: String,
}

/// A recorded action whose outcome is known.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// Its sequence number in the host's run.
    pub seq: u64,
    /// The builtin (`perftest::send_bw`).
    pub builtin: String,
    /// Its canonical arguments.
    pub args: Value,
    /// When its intent was recorded.
    pub started: u64,
    /// When its outcome was recorded.
    pub at: u64,
    /// Whether it changed the host.
    pub changed: bool,
    /// Whether the change waits for the next boot.
    pub reboot_required: bool,
    /// What the host had just before the change (the `acting` progress record), if recorded.
    pub acting: Option<Value>,
    /// For a failed `after_reboot`: the change the host did not apply, `{what, seq}` (its
    /// `not_applied` progress record; none in a journal from before it).
    pub not_applied: Option<Value>,
    /// The runbook or module file of the call, and its line.
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// Whether it succeeded.
    pub ok: bool,
    /// Why it failed.
    pub error: Option<String>,
    /// What it returned.
    pub result: Value,
}

impl Action {
    /// The action `intent` whose outcome is `outcome`, with its progress records.
    fn of(intent: &IntentRecord, progress: &[&Value], outcome: &OutcomeRecord) -> Self {
        let step = |key: &str| progress.iter().find_map(|step| step.get(key).cloned());
        Self {
            seq: intent.seq,
            builtin: intent.builtin.clone(),
            args: intent.args.clone(),
            started: intent.at,
            at: outcome.at,
            changed: outcome.changed,
            reboot_required: outcome.reboot_required,
            acting: step(cairn_runtime::ACTING),
            not_applied: step(cairn_runtime::NOT_APPLIED),
            file: intent.file.clone(),
            line: intent.line,
            ok: outcome.ok,
            error: outcome.error.clone(),
            result: outcome.result.clone(),
        }
    }
}

/// Every outcome in `journal`, in the order written, each with its intent and progress: a
/// rewind (`--from-stage`) or a retry makes a resume forget an action, not what it did.
fn history(journal: &HostJournal) -> Vec<Action> {
    let mut open: HashMap<u64, (&IntentRecord, Vec<&Value>)> = HashMap::new();
    let mut found = Vec::new();
    for (_, event) in &journal.events {
        match event {
            // A later header (a REPL session) begins a new numbering.
            JournalEvent::Header(_) => open.clear(),
            JournalEvent::Intent(intent) => {
                open.insert(intent.seq, (intent, Vec::new()));
            }
            JournalEvent::Progress(step) => {
                if let Some((_, steps)) = open.get_mut(&step.seq) {
                    steps.push(&step.data);
                }
            }
            JournalEvent::Outcome(outcome) => {
                if let Some((intent, steps)) = open.get(&outcome.seq) {
                    found.push(Action::of(intent, steps, outcome));
                }
            }
            _ => {}
        }
    }
    found
}

/// Where and why a host failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The message.
    pub message: String,
    /// The runbook or module file and 1-based line, when the journal says.
    pub location: Option<(String, u32)>,
    /// The builtin that failed, if an action did.
    pub builtin: Option<String>,
}

/// A host's part of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct HostModel {
    /// The host's name (`controller` for the controller's stages).
    pub name: String,
    /// The groups of the stages it ran, in stage order.
    pub groups: Vec<String>,
    /// How it ended; `None` while unfinished (stopped, crashed, waiting for a decision).
    pub status: Option<HostStatus>,
    /// The recap's counts.
    pub counts: Counts,
    /// Time spent in the run: each session, from its header or resume record to its last
    /// record, added up (the time between a stop and a resume is not counted).
    pub active_ms: u64,
    /// The stages it ran.
    pub stages: Vec<StageSpan>,
    /// Its reboots.
    pub reboots: Vec<RebootSpan>,
    /// Its waits for the disruption budget.
    pub budget_waits: Vec<BudgetWaitSpan>,
    /// When it was resumed.
    pub resumes: Vec<u64>,
    /// First and last record.
    pub span: Option<(u64, u64)>,
    /// Actions with their outcomes, by sequence number, as a resume sees them: a retried
    /// action's last outcome, the actions a `--from-stage` rewound forgotten.
    pub actions: Vec<Action>,
    /// Every outcome of every attempt, in the order written: what the host went through,
    /// rewound or not (what changed, the recap's counts).
    pub history: Vec<Action>,
    /// What its journal says it was left with down, as the runtime reads it for the recap
    /// and `--json`.
    pub left_down: Vec<cairn_runtime::LeftDown>,
    /// Why it failed.
    pub failure: Option<Failure>,
    /// Whether a staged change still waits for a reboot.
    pub reboot_pending: Option<String>,
    /// Each session (attempt) of its part of the run, from its header or resume record on.
    pub sessions: Vec<crate::sessions::SessionSpan>,
}

impl HostModel {
    /// The host `name`'s model from its journal.
    pub fn from_journal(name: &str, journal: &HostJournal) -> Self {
        let mut model = Self {
            name: name.to_owned(),
            groups: Vec::new(),
            status: journal.end.as_ref().map(|end| end.status),
            counts: Counts::default(),
            active_ms: 0,
            stages: Vec::new(),
            reboots: Vec::new(),
            budget_waits: Vec::new(),
            resumes: Vec::new(),
            span: None,
            actions: Vec::new(),
            history: history(journal),
            left_down: cairn_runtime::left_behind(name, journal),
            failure: None,
            reboot_pending: journal.end.as_ref().and_then(|e| e.reboot_pending.clone()),
            sessions: crate::sessions::sessions(journal),
        };
        model.read_events(journal);
        model.read_actions(journal);
        model.failure = failure(journal, &model.actions);
        if model.failure.is_some() && model.counts.failed == 0 {
            // An expectation, not an action, failed.
            model.counts.failed = 1;
        }
        model
    }

    fn read_events(&mut self, journal: &HostJournal) {
        let mut groups = BTreeSet::new();
        let mut session_start: Option<u64> = None;
        let mut last = None;
        for (_, event) in &journal.events {
            let at = event_at(event);
            if let JournalEvent::Header(_) | JournalEvent::Resume(_) = event {
                self.close_session(session_start, last);
                session_start = Some(at);
                if let JournalEvent::Resume(_) = event {
                    self.resumes.push(at);
                }
            }
            if let Some(wait) = self.budget_waits.last_mut()
                && wait.end == u64::MAX
            {
                wait.end = at;
            }
            if let JournalEvent::Wait(wait) = event {
                self.budget_waits.push(BudgetWaitSpan {
                    start: at,
                    end: u64::MAX,
                    reason: format!(
                        "{}: {} of {} unavailable: {}",
                        wait.before,
                        wait.holders.len(),
                        wait.limit,
                        wait.holders.join(", ")
                    ),
                });
            }
            if let Some(stage) = self.stages.last_mut()
                && stage.end == u64::MAX
            {
                match event {
                    JournalEvent::Stage(_) | JournalEvent::HostEnd(_) => stage.end = at,
                    JournalEvent::Outcome(_) => stage.last_action = Some(at),
                    _ => {}
                }
            }
            if let JournalEvent::Stage(stage) = event
                && stage.member
            {
                if groups.insert(stage.group.clone()) {
                    self.groups.push(stage.group.clone());
                }
                self.stages.push(StageSpan {
                    name: stage.name.clone(),
                    start: at,
                    end: u64::MAX,
                    last_action: None,
                });
            }
            self.span = Some(match self.span {
                None => (at, at),
                Some((first, end)) => (first.min(at), end.max(at)),
            });
            last = Some(at);
        }
        self.close_session(session_start, last);
        // A stage still open when the journal ends (a crash, a stop) ends at the last record.
        let end = self.span.map_or(0, |(_, end)| end);
        for stage in &mut self.stages {
            if stage.end == u64::MAX {
                stage.end = end.max(stage.start);
            }
        }
        for wait in &mut self.budget_waits {
            if wait.end == u64::MAX {
                wait.end = end.max(wait.start);
            }
        }
    }

    fn close_session(&mut self, start: Option<u64>, last: Option<u64>) {
        if let (Some(start), Some(last)) = (start, last) {
            self.active_ms += last.saturating_sub(start);
        }
    }

    /// The recap's counts and the reboots, over every attempt; the actions as a resume sees
    /// them.
    fn read_actions(&mut self, journal: &HostJournal) {
        for action in &self.history {
            if action.ok {
                self.counts.ok += 1;
                self.counts.changed += u64::from(action.changed);
            } else {
                self.counts.failed += 1;
            }
            if action.builtin == "reboot" && action.ok {
                self.counts.rebooted += 1;
                self.reboots.push(RebootSpan {
                    start: action.started,
                    end: action.at.max(action.started),
                    waited_ms: action.result.get("waited_ms").and_then(Value::as_u64),
                });
            }
        }
        self.actions = journal
            .actions
            .values()
            .filter_map(|recorded| {
                let outcome = recorded.outcome.as_ref()?;
                let progress: Vec<&Value> = recorded.progress.iter().collect();
                Some(Action::of(&recorded.intent, &progress, outcome))
            })
            .collect();
    }

    /// The successful calls of `builtin`, by sequence number.
    pub fn results<'a>(&'a self, builtin: &'a str) -> impl Iterator<Item = &'a Action> + 'a {
        self.actions
            .iter()
            .filter(move |action| action.ok && action.builtin == builtin)
    }
}

/// Why the host failed: its `host_end` record's error, at the runbook line it recorded (or,
/// for a journal from before that field, at the failed action's call).
fn failure(journal: &HostJournal, actions: &[Action]) -> Option<Failure> {
    let end: &HostEndRecord = journal.end.as_ref()?;
    if end.status != HostStatus::Failed {
        return None;
    }
    let failed_action = actions.iter().rev().find(|action| !action.ok);
    let location = match (&end.file, end.line) {
        (Some(file), Some(line)) => Some((file.clone(), line)),
        _ => failed_action.map(|action| (action.file.clone(), action.line)),
    };
    Some(Failure {
        message: end
            .error
            .clone()
            .or_else(|| failed_action.and_then(|action| action.error.clone()))
            .unwrap_or_else(|| "failed (the journal gives no reason)".into()),
        location,
        builtin: failed_action.map(|action| action.builtin.clone()),
    })
}

/// A record's `at`.
pub(crate) fn event_at(event: &JournalEvent) -> u64 {
    match event {
        JournalEvent::Batch(r) => r.at,
        JournalEvent::Debug(r) => r.at,
        JournalEvent::Decision(r) => r.at,
        JournalEvent::HostEnd(r) => r.at,
        JournalEvent::Header(r) => r.at,
        JournalEvent::Intent(r) => r.at,
        JournalEvent::Lease(r) => r.at,
        JournalEvent::Log(r) => r.at,
        JournalEvent::Outcome(r) => r.at,
        JournalEvent::Progress(r) => r.at,
        JournalEvent::Resume(r) => r.at,
        JournalEvent::Rewind(r) => r.at,
        JournalEvent::Stage(r) => r.at,
        JournalEvent::Wait(r) => r.at,
    }
}
