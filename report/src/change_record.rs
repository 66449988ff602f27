//! A change the journal records (an action whose outcome says `changed`, or one that failed
//! after it began changing the host), over every attempt, as before → after items and what
//! became of it (`Took`: the reboot, and whether the check after it found it applied), read from the result's shape: the `from`/`to` that `mlxfwmanager::update`,
//! `esxcli::advanced_set`, `esxcli::module_parameters_set` and `vhpc::latency` return, the
//! per-key `changed` map of `mlxconfig::set`, the `enabled` of `esxcli::pcipassthru_set`; the
//! VIB IDs of `esxcli::vib_install` and the version of `ofed::install` and `ofed::install_doca`
//! are read through their stdlib types (`VibChange`, `OfedChange`), and a result of another
//! shape is named in the section (`Unread`), the change shown by its arguments; any other
//! change shows its arguments, and the `acting` record as its before when there is one.

use std::collections::HashMap;

use cairn_stdlib::esxcli::VibChange;
use cairn_stdlib::ofed::OfedChange;
use serde_json::Value;

use crate::host_model::{Action, HostModel};
use crate::unread::Unread;

/// One before → after.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ChangeItem {
    pub(crate) what: String,
    pub(crate) before: String,
    pub(crate) after: String,
}

/// One change record: its items and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ChangeRecord {
    pub(crate) builtin: String,
    pub(crate) items: Vec<ChangeItem>,
    pub(crate) took: Took,
}

/// What became of a change: the reboot it needed, and whether it took.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Took {
    /// Applied at once.
    NoReboot,
    /// Staged, and a reboot followed (its check, if any, passed).
    Rebooted,
    /// Staged, and no reboot followed yet.
    Pending,
    /// Staged, rebooted, and the check after the reboot found it not applied (the error).
    NotApplied(String),
    /// Staged, rebooted, and the check after the reboot failed, in a journal from before it
    /// named the change (the error).
    CheckFailed(String),
    /// The action failed after it began changing the host (the error).
    Failed(String),
}

impl Took {
    /// The row's CSS class and its `data-took`.
    pub(crate) fn class(&self) -> &'static str {
        match self {
            Self::NoReboot => "none",
            Self::Rebooted => "rebooted",
            Self::Pending => "pending",
            Self::NotApplied(_) => "not-applied",
            Self::CheckFailed(_) => "check-failed",
            Self::Failed(_) => "failed",
        }
    }

    /// Whether the host has it (or will, at its pending reboot).
    pub(crate) fn applied(&self) -> bool {
        matches!(self, Self::NoReboot | Self::Rebooted | Self::Pending)
    }

    /// The reboot column in words.
    pub(crate) fn said(&self) -> String {
        match self {
            Self::NoReboot => "none".into(),
            Self::Rebooted => "needed, done".into(),
            Self::Pending => "needed, still pending".into(),
            Self::NotApplied(error) => format!("needed, done; NOT APPLIED: {error}"),
            Self::CheckFailed(error) => format!("needed, done; the check after it failed: {error}"),
            Self::Failed(error) => format!("the action FAILED: {error}"),
        }
    }
}

/// What is not known: a before the journal does not hold.
const UNKNOWN: &str = "—";

/// A key one side of a `from`/`to` map does not have.
const NOT_SET: &str = "(not set)";

/// The after of a change that takes no value (`mst::start`).
const APPLIED: &str = "applied";

/// The host's change records over every attempt, in the order written: each successful
/// action whose outcome says `changed`, and each that failed after it began changing the host
/// (its `acting` record); a reboot is a change of its own kind (the timeline and the recap
/// show it), so it is not one of them. A typed result that does not read as its type is
/// noted in `unread`.
pub(crate) fn changes(host: &HostModel, unread: &mut Unread) -> Vec<ChangeRecord> {
    let history = &host.history;
    let not_applied = not_applied(history);
    history
        .iter()
        .enumerate()
        .filter(|(_, a)| a.builtin != "reboot")
        .filter(|(_, a)| (a.ok && a.changed) || (!a.ok && a.acting.is_some()))
        .map(|(at, action)| ChangeRecord {
            builtin: action.builtin.clone(),
            items: typed_items(&host.name, action, unread).unwrap_or_else(|| items(action)),
            took: match (action.ok, action.reboot_required) {
                (false, _) => Took::Failed(error_of(action)),
                (true, false) => Took::NoReboot,
                (true, true) => match not_applied.get(&at) {
                    Some(error) => Took::NotApplied(error.clone()),
                    None => after_reboot(history, at),
                },
            },
        })
        .collect()
}

fn error_of(action: &Action) -> String {
    action.error.clone().unwrap_or_else(|| "failed".into())
}

/// The changes the host did not apply, by their place in `history`, with the error: each
/// failed `after_reboot` names the action that staged it by its sequence number, the latest
/// outcome of that number before it (a `--from-stage` numbers again).
fn not_applied(history: &[Action]) -> HashMap<usize, String> {
    let mut found = HashMap::new();
    for (at, check) in history.iter().enumerate() {
        if check.ok || check.builtin != AFTER_REBOOT {
            continue;
        }
        let Some(seq) = check.not_applied.as_ref().and_then(|n| n["seq"].as_u64()) else {
            continue;
        };
        if let Some(staged) = history[..at].iter().rposition(|a| a.seq == seq) {
            found.insert(staged, error_of(check));
        }
    }
    found
}

/// A staged change at `at` in `history`: pending until a reboot follows it; then as the
/// check after that reboot found (a failed check from before the check named its change
/// says so, rather than pass for applied).
fn after_reboot(history: &[Action], at: usize) -> Took {
    let later = &history[at + 1..];
    let Some(reboot) = later.iter().position(|a| a.ok && a.builtin == "reboot") else {
        return Took::Pending;
    };
    let check = later[reboot + 1..]
        .iter()
        .take_while(|a| a.builtin != "reboot")
        .find(|a| a.builtin == AFTER_REBOOT && !a.ok && a.not_applied.is_none());
    match check {
        Some(check) => Took::CheckFailed(error_of(check)),
        None => Took::Rebooted,
    }
}

/// The reboot-loop breaker's check after a reboot.
const AFTER_REBOOT: &str = "after_reboot";

/// The items of a change whose result is a stdlib type, read as it: `None` for another
/// builtin; a result that does not read is noted and shown by its arguments.
fn typed_items(host: &str, action: &Action, unread: &mut Unread) -> Option<Vec<ChangeItem>> {
    let read = match action.builtin.as_str() {
        "esxcli::vib_install" => unread
            .read_whole::<VibChange>(host, action)
            .map(|change| vib_change(action, &change)),
        "ofed::install" | "ofed::install_doca" => unread
            .read_whole::<OfedChange>(host, action)
            .map(|change| vec![ofed_change(action, &change)]),
        _ => return None,
    };
    Some(read.unwrap_or_else(|| vec![by_arguments(action)]))
}

/// The VIBs an install put in, each with the version it removed; an outcome assumed done has
/// no esxcli record, and shows its arguments.
fn vib_change(action: &Action, change: &VibChange) -> Vec<ChangeItem> {
    match &change.record {
        Some(record) => vibs(&record.vibs_installed, &record.vibs_removed),
        None => vec![by_arguments(action)],
    }
}

/// An OFED install: the version before, from its `acting` record (none: not installed), and
/// the version it installed.
fn ofed_change(action: &Action, change: &OfedChange) -> ChangeItem {
    let before = action.acting.as_ref().map(|acting| &acting["version"]);
    let before = match before {
        Some(Value::Null) => Value::String("not installed".into()),
        Some(before) => before.clone(),
        None => Value::Null,
    };
    ChangeItem {
        what: subject(action),
        before: text(&before),
        after: change.version.clone(),
    }
}

/// A change shown by its arguments, with its `acting` record as the before (unless that is
/// the result itself, which says nothing of before).
fn by_arguments(action: &Action) -> ChangeItem {
    let before = action
        .acting
        .clone()
        .filter(|acting| *acting != action.result);
    ChangeItem {
        what: subject(action),
        before: text(&before.unwrap_or(Value::Null)),
        after: text(&other_args(&action.args)),
    }
}

/// The before → after items of one change read by its result's keys.
fn items(action: &Action) -> Vec<ChangeItem> {
    let result = &action.result;
    let subject = subject(action);
    let item = |what: String, before: &Value, after: &Value| ChangeItem {
        what,
        before: text(before),
        after: text(after),
    };
    if let Some(keys) = result.get("changed").and_then(Value::as_object) {
        return keys
            .iter()
            .map(|(key, change)| item(format!("{subject} {key}"), &change["from"], &change["to"]))
            .collect();
    }
    if let (Some(from), Some(to)) = (result.get("from"), result.get("to")) {
        if let (Some(from), Some(to)) = (from.as_object(), to.as_object()) {
            let mut keys: Vec<&String> = from.keys().chain(to.keys()).collect();
            keys.sort();
            keys.dedup();
            return keys
                .into_iter()
                .filter(|key| from.get(*key) != to.get(*key))
                .map(|key| {
                    let get = |side: &serde_json::Map<String, Value>| {
                        side.get(key)
                            .cloned()
                            .unwrap_or_else(|| Value::String(NOT_SET.into()))
                    };
                    item(format!("{subject} {key}"), &get(from), &get(to))
                })
                .collect();
        }
        return vec![item(subject, from, to)];
    }
    if let Some(enabled) = result.get("enabled").and_then(Value::as_bool) {
        return vec![item(subject, &Value::Bool(!enabled), &Value::Bool(enabled))];
    }
    vec![by_arguments(action)]
}

/// The arguments that name what a change is about.
const SUBJECT_KEYS: [&str; 8] = [
    "vm",
    "module",
    "device",
    "device_id",
    "dev",
    "pci",
    "option",
    "ifname",
];

/// `mlxconfig::set mt4119_pciconf1`: the builtin and the VM, module, device or option it
/// changed.
fn subject(action: &Action) -> String {
    let mut subject = action.builtin.clone();
    for key in SUBJECT_KEYS {
        let named = [&action.result, &action.args]
            .iter()
            .find_map(|side| side.get(key).and_then(Value::as_str));
        if let Some(name) = named
            && !subject.split(' ').any(|word| word == name)
        {
            subject.push(' ');
            subject.push_str(name);
        }
    }
    subject
}

/// The arguments other than the subject's, as `key=value`.
fn other_args(args: &Value) -> Value {
    let Some(map) = args.as_object() else {
        return args.clone();
    };
    let text: Vec<String> = map
        .iter()
        .filter(|(key, _)| !SUBJECT_KEYS.contains(&key.as_str()))
        .map(|(key, value)| format!("{key}={}", self::text(value)))
        .collect();
    Value::String(if text.is_empty() {
        APPLIED.into()
    } else {
        text.join(" ")
    })
}

/// The installed VIBs (`MEL_bootbank_nmlx5-core_4.21.71.101-1OEM...`: vendor, acceptance,
/// name, version), each with the version of the same name it removed.
fn vibs(installed: &[String], removed: &[String]) -> Vec<ChangeItem> {
    let removed: Vec<(&str, &str)> = removed.iter().filter_map(|id| vib_parts(id)).collect();
    installed
        .iter()
        .filter_map(|id| vib_parts(id))
        .map(|(name, version)| ChangeItem {
            what: format!("VIB {name}"),
            before: removed
                .iter()
                .find(|(old, _)| *old == name)
                .map_or_else(|| "not installed".to_owned(), |(_, v)| (*v).to_owned()),
            after: version.to_owned(),
        })
        .collect()
}

/// A VIB ID's name and version.
fn vib_parts(id: &str) -> Option<(&str, &str)> {
    let mut parts = id.splitn(4, '_');
    let (_vendor, _acceptance) = (parts.next()?, parts.next()?);
    Some((parts.next()?, parts.next()?))
}

/// A value as the row shows it: text as is, `{label, value}` as `IB(1)`, nothing as `—`.
fn text(value: &Value) -> String {
    match value {
        Value::Null => UNKNOWN.to_owned(),
        Value::String(text) if text.is_empty() => "\"\"".to_owned(),
        Value::String(text) => text.clone(),
        Value::Object(map) => match (map.get("label"), map.get("value")) {
            (Some(label), Some(number)) => format!("{}({})", text(label), text(number)),
            _ => value.to_string(),
        },
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn action(builtin: &str, args: Value, acting: Option<Value>, result: Value) -> Action {
        Action {
            seq: 2,
            builtin: builtin.into(),
            args,
            started: 0,
            at: 0,
            not_applied: None,
            changed: true,
            reboot_required: true,
            acting,
            file: "book.rhai".into(),
            line: 7,
            ok: true,
            error: None,
            result,
        }
    }

    fn item(what: &str, before: &str, after: &str) -> ChangeItem {
        ChangeItem {
            what: what.into(),
            before: before.into(),
            after: after.into(),
        }
    }

    #[test]
    fn a_vib_install_and_an_ofed_install_read_as_their_stdlib_types() {
        let mut unread = Unread::of("the changes");
        let vib = action(
            "esxcli::vib_install",
            json!({ "source": "/n/nmlx5.zip", "force": false }),
            None,
            json!({
                "changed": true,
                "reboot_required": true,
                "message": "The update completed successfully, but the system needs to be rebooted for the changes to be effective.",
                "vibs_installed": ["MEL_bootbank_nmlx5-core_4.21.71.101-1OEM.702.0.0.17473468"],
                "vibs_removed": ["VMW_bootbank_nmlx5-core_4.19.16.10-1vmw.703.0.0.18644231"],
                "vibs_skipped": []
            }),
        );
        assert_eq!(
            typed_items("esx01", &vib, &mut unread),
            Some(vec![item(
                "VIB nmlx5-core",
                "4.19.16.10-1vmw.703.0.0.18644231",
                "4.21.71.101-1OEM.702.0.0.17473468"
            )])
        );
        let ofed = action(
            "ofed::install",
            json!({ "tarball": "/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz" }),
            Some(json!({ "version": null })),
            json!({ "version": "5.4-3.0.3.0", "changed": true, "firmware": "not_attempted" }),
        );
        assert_eq!(
            typed_items("g", &ofed, &mut unread),
            Some(vec![item("ofed::install", "not installed", "5.4-3.0.3.0")])
        );
        assert!(unread.is_empty(), "{:?}", unread.line());
        let other = action("mst::start", json!({}), None, json!({ "version": "1" }));
        assert_eq!(typed_items("esx01", &other, &mut unread), None);
    }

    #[test]
    fn a_result_of_another_shape_is_named_and_shown_by_its_arguments() {
        let mut unread = Unread::of("the changes");
        let ofed = action(
            "ofed::install",
            json!({ "tarball": "/nfs/ofed.tgz" }),
            Some(json!({ "version": null })),
            json!({ "ofed_version": "5.4-3.0.3.0", "changed": true }),
        );
        assert_eq!(
            typed_items("g", &ofed, &mut unread),
            Some(vec![item(
                "ofed::install",
                "{\"version\":null}",
                "tarball=/nfs/ofed.tgz"
            )])
        );
        let vib = action(
            "esxcli::vib_install",
            json!({ "source": "/n/mft.vib" }),
            None,
            json!({ "changed": true, "reboot_required": true, "message": "done", "vibs_added": ["MEL_bootbank_mft_4.22.1.11-10EM.703.0.0.18644231"], "vibs_removed": [], "vibs_skipped": [] }),
        );
        assert_eq!(
            typed_items("esx01", &vib, &mut unread),
            Some(vec![item("esxcli::vib_install", "—", "source=/n/mft.vib")])
        );
        let line = unread.line().unwrap_or_default();
        assert!(
            line.starts_with("2 results of the changes could not be read: "),
            "{line}"
        );
        assert!(
            line.contains("missing field `version` (g action 2, book.rhai:7)"),
            "{line}"
        );
        assert!(
            line.contains("its type does not have (esx01 action 2, book.rhai:7)"),
            "{line}"
        );
    }

    #[test]
    fn a_vib_id_is_read_as_name_and_version() {
        assert_eq!(
            vib_parts("MEL_bootbank_nmlx5-core_4.21.71.101-1OEM.702.0.0.17473468"),
            Some(("nmlx5-core", "4.21.71.101-1OEM.702.0.0.17473468"))
        );
        assert_eq!(vib_parts("broken"), None);
    }

    #[test]
    fn a_labelled_value_reads_as_the_tool_prints_it() {
        assert_eq!(
            text(&serde_json::json!({"label": "IB", "value": 1})),
            "IB(1)"
        );
        assert_eq!(text(&Value::Null), "—");
    }
}
