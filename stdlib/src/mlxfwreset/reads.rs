//! What the `mlxfwreset::` builtins read from a host, as typed values: `query` journals
//! [`ResetLevels`], `status` a [`Pending`] (`action::query_typed`), and `reset` reads both to
//! decide, so a replayed record of another shape is refused naming it.

use cairn_runtime::{ActionError, ExecOutput, ExecRequest, HostIo};
use serde::{Deserialize, Deserializer, Serialize};

use super::{ResetQuery, ResetStatus, command};
use crate::action;

/// What `mlxfwreset::query` gives a script: the levels the device supports now, or (no
/// `mlxfwreset` on the host, as on ESXi) `installed: false` with no level.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(super) enum ResetLevels {
    Installed(Box<InstalledLevels>),
    NotInstalled(NoLevels),
}

/// `mlxfwreset -d DEV query` as printed, with the device and the levels read out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct InstalledLevels {
    pub(super) device: String,
    pub(super) installed: bool,
    #[serde(flatten)]
    pub(super) query: ResetQuery,
    pub(super) supported_levels: Vec<u32>,
    #[serde(deserialize_with = "action::present")]
    pub(super) default_level: Option<u32>,
}

/// A host without `mlxfwreset`: no level at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct NoLevels {
    pub(super) device: String,
    pub(super) installed: bool,
    pub(super) levels: Vec<super::ResetOption>,
    pub(super) supported_levels: Vec<u32>,
    #[serde(deserialize_with = "action::present")]
    pub(super) default_level: Option<u32>,
    pub(super) errors: Vec<String>,
}

impl ResetLevels {
    /// The levels a reset may use now, lowest first.
    pub(super) fn supported(&self) -> &[u32] {
        match self {
            ResetLevels::Installed(levels) => &levels.supported_levels,
            ResetLevels::NotInstalled(none) => &none.supported_levels,
        }
    }
}

/// What `mlxfwreset::status` gives a script: what waits for a reset, or (check mode, no
/// `mlxfwreset` yet) `#{device, installed: false, pending: false, predicted: true}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(super) enum Pending {
    Read(Box<PendingRead>),
    Predicted(PendingPredicted),
}

/// `mlxfwreset -d DEV status` as printed, with whether anything waits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct PendingRead {
    /// Its `device` is the one asked for (not the tool's name for it).
    #[serde(flatten)]
    pub(super) status: ResetStatus,
    pub(super) installed: bool,
    pub(super) pending: bool,
}

/// Check mode before MFT is installed: nothing can be read, nothing is known to wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct PendingPredicted {
    pub(super) device: String,
    pub(super) installed: bool,
    pub(super) pending: bool,
    pub(super) predicted: bool,
}

impl Pending {
    /// Whether a staged image or configuration waits for a reset.
    pub(super) fn pending(&self) -> bool {
        match self {
            Pending::Read(read) => read.pending,
            Pending::Predicted(predicted) => predicted.pending,
        }
    }

    /// Why it waits, as the tool says it.
    pub(super) fn reasons(&self) -> Vec<String> {
        match self {
            Pending::Read(read) => read.status.reasons.clone(),
            Pending::Predicted(_) => Vec::new(),
        }
    }

    /// True for check mode's prediction.
    pub(super) fn predicted(&self) -> bool {
        matches!(self, Pending::Predicted(_))
    }
}

/// Read back by `installed`, so a record of another shape fails with the field that is wrong
/// (an untagged enum would only say that no variant matched).
impl<'de> Deserialize<'de> for ResetLevels {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let read = if value["installed"] == false {
            serde_json::from_value(value).map(ResetLevels::NotInstalled)
        } else {
            serde_json::from_value(value).map(ResetLevels::Installed)
        };
        read.map_err(serde::de::Error::custom)
    }
}

/// Read back by `predicted`, as [`ResetLevels`] by `installed`.
impl<'de> Deserialize<'de> for Pending {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let read = if value["predicted"] == true {
            serde_json::from_value(value).map(Pending::Predicted)
        } else {
            serde_json::from_value(value).map(Pending::Read)
        };
        read.map_err(serde::de::Error::custom)
    }
}

/// Runs `argv`: `None` when `mlxfwreset` is not installed (exit 127); the output with any exit
/// code otherwise (the tool prints its `-E-` failures on stdout and exits 1).
pub(super) fn run_tool(
    io: &mut HostIo<'_>,
    argv: &[String],
) -> Result<Option<ExecOutput>, ActionError> {
    let output = io.exec(&ExecRequest::new(argv.iter().cloned()))?;
    Ok((output.code != 127).then_some(output))
}

/// A failed run as an error that carries the tool's words.
pub(super) fn failed(argv: &[String], output: ExecOutput, errors: &[String]) -> ActionError {
    ActionError::CommandFailed {
        code: output.code,
        command: argv.join(" "),
        stderr: if errors.is_empty() {
            format!("{}{}", output.stdout, output.stderr)
        } else {
            errors.join("; ")
        },
    }
}

/// `mlxfwreset -d DEV query`: the levels the device supports now.
pub(super) fn levels(io: &mut HostIo<'_>, dev: &str) -> Result<ResetLevels, ActionError> {
    let argv = command::query(dev);
    let Some(output) = run_tool(io, &argv)? else {
        return Ok(ResetLevels::NotInstalled(NoLevels {
            device: dev.to_owned(),
            installed: false,
            levels: Vec::new(),
            supported_levels: Vec::new(),
            default_level: None,
            errors: Vec::new(),
        }));
    };
    let query = action::parsed(&argv, &output.stdout, super::parse_query)?;
    let no_level = query
        .errors
        .iter()
        .any(|e| e.starts_with("There is no supported reset-level"));
    if output.code != 0 && !no_level {
        return Err(failed(&argv, output, &query.errors));
    }
    Ok(ResetLevels::Installed(Box::new(InstalledLevels {
        device: dev.to_owned(),
        installed: true,
        supported_levels: query.supported_levels(),
        default_level: query.levels.iter().find(|l| l.default).map(|l| l.number),
        query,
    })))
}

/// `mlxfwreset -d DEV status`: what waits for a reset; in check mode without `mlxfwreset`, the
/// prediction that nothing does.
pub(super) fn pending(io: &mut HostIo<'_>, dev: &str) -> Result<Pending, ActionError> {
    let argv = command::status(dev);
    let Some(output) = run_tool(io, &argv)? else {
        if io.checking() {
            return Ok(Pending::Predicted(PendingPredicted {
                device: dev.to_owned(),
                installed: false,
                pending: false,
                predicted: true,
            }));
        }
        return Err(ActionError::NotInstalled {
            program: "mlxfwreset".into(),
            host: io.host().to_owned(),
            install: "the MFT tools for Linux have it (on ESXi there is none: reboot instead)"
                .into(),
        });
    };
    let mut status = action::parsed(&argv, &output.stdout, super::parse_status)?;
    if output.code != 0 {
        return Err(failed(&argv, output, &status.errors));
    }
    status.device = Some(dev.to_owned());
    Ok(Pending::Read(Box::new(PendingRead {
        pending: status.pending(),
        installed: true,
        status,
    })))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    /// The shapes `mlxfwreset::query` journaled as JSON built by hand, before it was typed.
    #[test]
    fn both_shapes_journal_as_before_and_read_back() {
        let query = ResetQuery {
            levels: vec![super::super::ResetOption {
                number: 3,
                description: "Driver restart and PCI reset".into(),
                supported: true,
                default: true,
            }],
            ..ResetQuery::default()
        };
        let mut before = action::json(&query);
        before["device"] = json!("3b:00.0");
        before["installed"] = json!(true);
        before["supported_levels"] = json!([3]);
        before["default_level"] = json!(3);
        let installed = ResetLevels::Installed(Box::new(InstalledLevels {
            device: "3b:00.0".into(),
            installed: true,
            supported_levels: query.supported_levels(),
            default_level: Some(3),
            query,
        }));
        assert_eq!(action::json(&installed), before);
        let back: ResetLevels = serde_json::from_value(before).expect("reads back");
        assert_eq!(back, installed);

        let t = TestHost::esxi("").build();
        let live = t.eval(r#"mlxfwreset::query("3b:00.0")"#);
        let journaled: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        assert_eq!(
            journaled,
            json!({ "device": "3b:00.0", "installed": false, "levels": [], "supported_levels": [], "default_level": null, "errors": [] })
        );
    }

    #[test]
    fn a_replayed_record_of_another_shape_is_refused_naming_it() {
        let args = json!({ "device": "3b:00.0" });
        let status = json!({ "device": "3b:00.0", "installed": true, "waiting": true, "pending_fw_version": null, "running_fw_version": null, "pending_nvconfig": [], "description_action": null, "command_required": null, "reasons": [], "errors": [] });
        for (call, builtin, result, expected, names) in [
            (
                r#"mlxfwreset::query("3b:00.0")"#,
                "mlxfwreset::query",
                json!({ "device": "3b:00.0", "installed": true, "levels": "3" }),
                "mlxfwreset's reset levels",
                "`supported_levels`",
            ),
            (
                r#"mlxfwreset::status("3b:00.0")"#,
                "mlxfwreset::status",
                status,
                "mlxfwreset's reset status",
                "`pending`",
            ),
        ] {
            let t = TestHost::esxi("")
                .replaying(journal_of(builtin, args.clone(), result))
                .build();
            let error = t.error(call);
            assert!(error.contains(&shape_error(builtin, expected)), "{error}");
            assert!(error.contains(names), "{error}");
            assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
        }
        let args = json!({ "device": "3b:00.0", "level": 3 });
        let done = json!({ "device": "3b:00.0", "level": 3, "done": true, "reasons": [] });
        let t = TestHost::esxi("")
            .replaying(journal_of("mlxfwreset::reset", args, done))
            .build();
        let error = t.error(r#"mlxfwreset::reset("3b:00.0", 3)"#);
        let expected = shape_error("mlxfwreset::reset", "mlxfwreset::reset's result");
        assert!(error.contains(&expected), "{error}");
    }
}
