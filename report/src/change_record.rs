//! A change the journal records (an action whose outcome says `changed`) as before → after
//! items, read from the result's shape: the `from`/`to` that `mlxfwmanager::update`,
//! `esxcli::advanced_set`, `esxcli::module_parameters_set` and `vhpc::latency` return, the
//! per-key `changed` map of `mlxconfig::set`, the VIB IDs of `esxcli::vib_install`, the
//! `enabled` of `esxcli::pcipassthru_set`, the `version` of `ofed::install`; any other change
//! shows its arguments, and the `acting` record as its before when there is one.

use serde_json::Value;

use crate::host_model::{Action, HostModel};

/// One before → after.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ChangeItem {
    pub(crate) what: String,
    pub(crate) before: String,
    pub(crate) after: String,
}

/// One change record: its items and the reboot it needed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ChangeRecord {
    pub(crate) builtin: String,
    pub(crate) items: Vec<ChangeItem>,
    /// `none`, `rebooted` or `pending`.
    pub(crate) reboot: &'static str,
}

/// What is not known: a before the journal does not hold.
const UNKNOWN: &str = "—";

/// A key one side of a `from`/`to` map does not have.
const NOT_SET: &str = "(not set)";

/// The after of a change that takes no value (`mst::start`).
const APPLIED: &str = "applied";

/// The host's change records in sequence order; a reboot is a change of its own kind (the
/// timeline and the recap show it), so it is not one of them.
pub(crate) fn changes(host: &HostModel) -> Vec<ChangeRecord> {
    host.actions
        .iter()
        .filter(|a| a.ok && a.changed && a.builtin != "reboot")
        .map(|action| ChangeRecord {
            builtin: action.builtin.clone(),
            items: items(action),
            reboot: match action.reboot_required {
                false => "none",
                true if rebooted_after(host, action.seq) => "rebooted",
                true => "pending",
            },
        })
        .collect()
}

fn rebooted_after(host: &HostModel, seq: u64) -> bool {
    host.actions
        .iter()
        .any(|a| a.ok && a.builtin == "reboot" && a.seq > seq)
}

/// The before → after items of one change.
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
    if let Some(installed) = result.get("vibs_installed").and_then(Value::as_array) {
        return vibs(installed, result.get("vibs_removed"));
    }
    if let Some(enabled) = result.get("enabled").and_then(Value::as_bool) {
        return vec![item(subject, &Value::Bool(!enabled), &Value::Bool(enabled))];
    }
    let (before, after) = match result.get("version") {
        // An install: the version before, from its `acting` record (none: not installed).
        Some(version) => {
            let before = action.acting.as_ref().map(|acting| &acting["version"]);
            let before = match before {
                Some(Value::Null) => Value::String("not installed".into()),
                Some(before) => before.clone(),
                None => Value::Null,
            };
            (before, version.clone())
        }
        None => {
            // An `acting` record that is the result itself says nothing of before.
            let before = action.acting.clone().filter(|acting| acting != result);
            (before.unwrap_or(Value::Null), other_args(&action.args))
        }
    };
    vec![item(subject, &before, &after)]
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
fn vibs(installed: &[Value], removed: Option<&Value>) -> Vec<ChangeItem> {
    let removed: Vec<(&str, &str)> = removed
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|id| vib_parts(id.as_str()?))
        .collect();
    installed
        .iter()
        .filter_map(|id| vib_parts(id.as_str()?))
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
    use super::*;

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
