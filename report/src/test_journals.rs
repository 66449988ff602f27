//! Journals written with the runtime's record types, for the report's tests and benches: a host's
//! header, a stage every three actions, each action's intent and outcome, its end.

use cairn_runtime::journal::{
    HostEndRecord, HostStatus, IntentRecord, JournalEvent, OutcomeRecord, RunHeader, StageRecord,
};
use cairn_runtime::{CONTROLLER, RunFolders, RunMeta};
use serde_json::Value;

/// The first record's time: 2026-11-30 05:15:02 UTC.
pub(crate) const START: u64 = 1_796_015_702_000;

/// The `run.json` of a finished run `id` on `hosts` with a controller, begun at [`START`].
pub(crate) fn run_meta(id: &str, hosts: Vec<String>) -> RunMeta {
    RunMeta {
        at: START,
        hosts,
        inventory: "lab.toml".into(),
        max_operations: 1,
        max_unavailable: None,
        begun: true,
        controller: true,
        pack: None,
        params: Default::default(),
        reboot_timeout_secs: 600,
        run_id: id.to_owned(),
        runbook: "book.rhai".into(),
        import_root: None,
        import_dirs: Vec::new(),
        fleet: None,
        vault: None,
    }
}

/// A run on `hosts` claimed in `store` (its lock given back) with its `run.json`: its id.
pub(crate) fn new_run(store: &RunFolders, hosts: &[String]) -> String {
    let (id, lock) = store.claim().unwrap_or_else(|e| panic!("claim a run: {e}"));
    drop(lock);
    store
        .create(&run_meta(&id, hosts.to_vec()))
        .unwrap_or_else(|e| panic!("run.json: {e}"));
    id
}

/// One recorded action.
pub(crate) struct Act {
    pub(crate) builtin: &'static str,
    pub(crate) args: Value,
    pub(crate) result: Value,
    pub(crate) changed: bool,
    pub(crate) reboot_required: bool,
}

impl Act {
    /// A query: nothing changed.
    pub(crate) fn query(builtin: &'static str, args: Value, result: Value) -> Self {
        let changed = builtin == "reboot";
        Self {
            builtin,
            args,
            result,
            changed,
            reboot_required: false,
        }
    }

    /// A change, owing a reboot or not.
    #[allow(dead_code, reason = "the 200-host bench records queries only")]
    pub(crate) fn change(builtin: &'static str, args: Value, result: Value, reboot: bool) -> Self {
        Self {
            builtin,
            args,
            result,
            changed: true,
            reboot_required: reboot,
        }
    }
}

/// Writes `host`'s journal of run `id`: records `step_ms` apart from [`START`].
pub(crate) fn write_journal(
    store: &RunFolders,
    id: &str,
    (host, hosts): (&str, &[String]),
    group: &str,
    step_ms: u64,
    actions: &[Act],
) {
    let mut at = START;
    let mut tick = || {
        at += step_ms;
        at
    };
    let mut lines = vec![JournalEvent::Header(RunHeader {
        at: tick(),
        host: host.into(),
        hosts: hosts.to_vec(),
        inventory: "lab.toml".into(),
        params: Default::default(),
        run_id: id.into(),
        runbook: "book.rhai".into(),
        runbook_hash: String::new(),
        version: 1,
    })];
    for (seq, act) in actions.iter().enumerate() {
        let seq = seq as u64 + 1;
        let stage = format!("stage {}", seq.div_ceil(3));
        if seq % 3 == 1 {
            lines.push(JournalEvent::Stage(StageRecord {
                at: tick(),
                group: group.into(),
                index: seq.div_ceil(3),
                member: true,
                name: stage.clone(),
                after: None,
                waited_for: Vec::new(),
            }));
        }
        lines.push(JournalEvent::Intent(IntentRecord {
            args: act.args.clone(),
            at: tick(),
            builtin: act.builtin.into(),
            column: 5,
            file: "book.rhai".into(),
            line: 10 + seq as u32,
            ordinal: seq,
            reconcile: "redo".into(),
            seq,
            stage,
            stage_index: seq.div_ceil(3),
        }));
        lines.push(JournalEvent::Outcome(OutcomeRecord {
            at: tick(),
            changed: act.changed,
            elapsed_ms: step_ms,
            error: None,
            how: None,
            ok: true,
            reboot_required: act.reboot_required,
            result: act.result.clone(),
            secrets: Vec::new(),
            seq,
        }));
    }
    lines.push(JournalEvent::HostEnd(HostEndRecord {
        at: tick(),
        column: None,
        error: None,
        file: None,
        line: None,
        reboot_pending: None,
        status: HostStatus::Done,
    }));
    let text: String = lines
        .iter()
        .map(|event| serde_json::to_string(event).expect("a record") + "\n")
        .collect();
    std::fs::write(store.journal_path(id, host), text).expect("write a journal");
}

/// Writes the controller's journal of run `id` on `hosts`: `actions` in its `controller`
/// group, 37 ms apart.
pub(crate) fn write_controller(store: &RunFolders, id: &str, hosts: &[String], actions: &[Act]) {
    write_journal(store, id, (CONTROLLER, hosts), CONTROLLER, 37, actions);
}
