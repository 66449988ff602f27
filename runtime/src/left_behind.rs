//! What a run leaves down, read from a host's journal: the host in maintenance mode, the VMs it
//! powered off and did not power on again, a reboot sent and not seen back, changes staged for
//! the next boot. The end of a failed
//! or stopped run lists them (the recap, `--json`, the report), and `cairn resume` starts by
//! saying it continues from there, so an operator never has to find a VM left off by hand.

use crate::journal::HostJournal;

/// The builtin that enters and leaves maintenance mode (its result has `enabled`).
const MAINTENANCE: &str = "esxcli::maintenance_mode_set";
/// The builtin that powers a VM on or off (its arguments have `vm` and `state`).
const POWER: &str = "vhpc::power";
/// The firmware reset that loads, without a reboot, what [`ACTIVATED_BY_RESET`] staged (its
/// result has `reset`); `mlxfwreset::reset` tells the host context the same when it runs.
const RESET: &str = "mlxfwreset::reset";
const ACTIVATED_BY_RESET: [&str; 2] = ["mlxconfig::set", "mlxfwmanager::update"];

/// One thing a run left down.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LeftDown {
    /// The host is in maintenance mode.
    Maintenance(String),
    /// The VM (first) was powered off by the host (second) and not powered on again.
    VmOff(String, String),
    /// A reboot was sent to the host and the host was not seen back.
    Rebooting(String),
    /// The host (first) has changes staged for its next boot: each `builtin` at `file:line`.
    Staged(String, Vec<String>),
}

impl LeftDown {
    /// The host it is about.
    pub fn host(&self) -> &str {
        match self {
            Self::Maintenance(host)
            | Self::VmOff(_, host)
            | Self::Rebooting(host)
            | Self::Staged(host, _) => host,
        }
    }

    /// The same thing on another host: hosts left alike are one key once it names none.
    pub fn on(&self, host: &str) -> Self {
        let host = host.to_owned();
        match self {
            Self::Maintenance(_) => Self::Maintenance(host),
            Self::VmOff(vm, _) => Self::VmOff(vm.clone(), host),
            Self::Rebooting(_) => Self::Rebooting(host),
            Self::Staged(_, changes) => Self::Staged(host, changes.clone()),
        }
    }
}

impl std::fmt::Display for LeftDown {
    /// One sentence, as the recap's `left down:` line, `--json` and the report say it (the
    /// report with a range of hosts left alike: `esx[01-02] in maintenance mode`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Maintenance(host) => write!(f, "{host} in maintenance mode"),
            Self::VmOff(vm, host) => write!(f, "VM {vm} powered off (by {host})"),
            Self::Rebooting(host) => write!(
                f,
                "{host} rebooting: the reboot was sent and {host} not seen back"
            ),
            Self::Staged(host, changes) => write!(
                f,
                "{host} with {} staged for the next boot ({})",
                if changes.len() == 1 {
                    "1 change".to_owned()
                } else {
                    format!("{} changes", changes.len())
                },
                changes.join(", ")
            ),
        }
    }
}

/// What `host`'s journal says it left down, in that order: maintenance mode, the VMs off, a
/// reboot in flight, or else the changes still waiting for a reboot.
pub fn left_behind(host: &str, journal: &HostJournal) -> Vec<LeftDown> {
    let mut maintenance = false;
    let mut off: Vec<String> = Vec::new();
    let mut rebooting = false;
    // (builtin, `` `builtin` at file:line ``), as the host context words a pending reboot.
    let mut staged: Vec<(&str, String)> = Vec::new();
    for action in journal.actions.values() {
        let intent = &action.intent;
        let done = action.outcome.as_ref().filter(|o| o.ok);
        match (intent.builtin.as_str(), done) {
            (MAINTENANCE, Some(outcome)) => {
                if let Some(on) = outcome.result.get("enabled").and_then(|v| v.as_bool()) {
                    maintenance = on;
                }
            }
            (POWER, Some(_)) => {
                let vm = intent.args["vm"].as_str().unwrap_or_default().to_owned();
                off.retain(|v| *v != vm);
                if intent.args["state"] == "off" {
                    off.push(vm);
                }
            }
            // The old boot id is journaled just before `reboot` is sent: with no outcome after
            // it, the reboot went out and the host was not seen back.
            ("reboot", None) => rebooting = !action.progress.is_empty(),
            ("reboot", Some(_)) => {
                rebooting = false;
                staged.clear();
            }
            (RESET, Some(outcome)) if outcome.result.get("reset") == Some(&true.into()) => {
                staged.retain(|(builtin, _)| !ACTIVATED_BY_RESET.contains(builtin));
            }
            _ => {}
        }
        if done.is_some_and(|outcome| outcome.reboot_required) {
            let why = format!("`{}` at {}:{}", intent.builtin, intent.file, intent.line);
            staged.push((intent.builtin.as_str(), why));
        }
    }
    let mut left = Vec::new();
    if maintenance {
        left.push(LeftDown::Maintenance(host.to_owned()));
    }
    left.extend(
        off.into_iter()
            .map(|vm| LeftDown::VmOff(vm, host.to_owned())),
    );
    if rebooting {
        // The reboot in flight will load what was staged.
        left.push(LeftDown::Rebooting(host.to_owned()));
    } else if !staged.is_empty() {
        let changes = staged.into_iter().map(|(_, why)| why).collect();
        left.push(LeftDown::Staged(host.to_owned(), changes));
    }
    left
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::journal::{IntentRecord, OutcomeRecord, RecordedAction};

    /// What `host`'s journal says it left down, in words.
    fn said(host: &str, journal: &HostJournal) -> Vec<String> {
        left_behind(host, journal)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn staging(seq: u64, builtin: &str) -> RecordedAction {
        let mut step = action(seq, builtin, json!({}), Some(json!({})));
        if let Some(outcome) = step.outcome.as_mut() {
            outcome.reboot_required = true;
        }
        step
    }

    #[test]
    fn changes_staged_for_the_next_boot_are_left_behind_until_a_reboot_or_a_reset_loads_them() {
        let mut journal = HostJournal::default();
        for step in [
            staging(1, "mlxconfig::set"),
            action(2, "reboot", json!({}), Some(json!({}))),
            staging(3, "esxcli::module_parameters_set"),
            staging(4, "mlxconfig::set"),
        ] {
            journal.actions.insert(step.intent.seq, step);
        }
        let left = said("esx03", &journal);
        assert_eq!(
            left,
            [
                "esx03 with 2 changes staged for the next boot (`esxcli::module_parameters_set` at book.rhai:1, `mlxconfig::set` at book.rhai:1)"
            ]
        );
        let reset = action(5, RESET, json!({}), Some(json!({ "reset": true })));
        journal.actions.insert(5, reset);
        let left = said("esx03", &journal);
        assert_eq!(
            left,
            [
                "esx03 with 1 change staged for the next boot (`esxcli::module_parameters_set` at book.rhai:1)"
            ]
        );
        let sent = action(6, "reboot", json!({}), None);
        journal.actions.insert(6, sent);
        assert!(matches!(
            left_behind("esx03", &journal).as_slice(),
            [LeftDown::Rebooting(_)]
        ));
    }

    fn action(
        seq: u64,
        builtin: &str,
        args: serde_json::Value,
        result: Option<serde_json::Value>,
    ) -> RecordedAction {
        RecordedAction {
            decision: None,
            intent: IntentRecord {
                args,
                at: 0,
                builtin: builtin.into(),
                column: 1,
                file: "book.rhai".into(),
                line: 1,
                ordinal: seq,
                reconcile: "redo".into(),
                seq,
                stage: "roll".into(),
                stage_index: 1,
            },
            line: 0,
            outcome: result.map(|result| OutcomeRecord {
                at: 0,
                changed: true,
                elapsed_ms: 0,
                error: None,
                how: None,
                ok: true,
                reboot_required: false,
                result,
                secrets: Vec::new(),
                seq,
            }),
            progress: vec![json!({ "boot_id": "old" })],
        }
    }

    #[test]
    fn a_vm_off_a_host_in_maintenance_and_a_reboot_in_flight_are_left_behind() {
        let mut journal = HostJournal::default();
        let steps = [
            action(
                1,
                POWER,
                json!({ "vm": "compute-02", "state": "off" }),
                Some(json!({})),
            ),
            action(
                2,
                MAINTENANCE,
                json!({ "enabled": true }),
                Some(json!({ "enabled": true })),
            ),
            action(3, "reboot", json!({}), Some(json!({}))),
            action(4, "reboot", json!({}), None),
        ];
        for step in steps {
            journal.actions.insert(step.intent.seq, step);
        }
        let left = said("esx02", &journal);
        assert_eq!(
            left,
            [
                "esx02 in maintenance mode",
                "VM compute-02 powered off (by esx02)",
                "esx02 rebooting: the reboot was sent and esx02 not seen back"
            ]
        );
        let on = action(
            5,
            POWER,
            json!({ "vm": "compute-02", "state": "on" }),
            Some(json!({})),
        );
        let out = action(
            6,
            MAINTENANCE,
            json!({ "enabled": false }),
            Some(json!({ "enabled": false })),
        );
        let back = action(7, "reboot", json!({}), Some(json!({})));
        for step in [on, out, back] {
            journal.actions.insert(step.intent.seq, step);
        }
        assert!(left_behind("esx02", &journal).is_empty());
    }
}
