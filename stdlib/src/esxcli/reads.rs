//! What the `esxcli::` builtins read from a host, as the parsers' types: the builtins journal
//! these values (`action::query_typed`), the changes compare with them and the reboot-loop
//! breaker's checks (`staged.rs`) read them back, so no file needs another's helpers. A
//! change's result read back typed (`action::result_typed`) is here too: `vib_install`'s
//! [`VibChange`].

use std::collections::BTreeMap;

use cairn_runtime::{ActionError, HostIo};
use serde::{Deserialize, Serialize};

use super::{AdvancedOption, ModuleParameter, Nic, PciPassthru, Vib, VibInstall, command};
use crate::action;

/// `esxcli software vib list`: every VIB of the host's image.
pub(super) fn vibs(io: &mut HostIo<'_>) -> Result<Vec<Vib>, ActionError> {
    action::run_parsed(io, &command::vib_list(), super::parse_vib_list)
}

/// `esxcli software vib install|update` (`argv`, a dry run or not): its result record; an
/// esxcli error (`[DependencyError]`...) or a failed command fails.
pub(super) fn vib_install(io: &mut HostIo<'_>, argv: &[String]) -> Result<VibInstall, ActionError> {
    let output = io.exec(&cairn_runtime::ExecRequest::new(argv.iter().cloned()))?;
    let text = if output.stdout.trim().is_empty() {
        &output.stderr
    } else {
        &output.stdout
    };
    let result = action::parsed(argv, text, super::parse_vib_install)?;
    if let Some(error) = &result.error {
        return Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("failed: [{}] {}", error.kind, error.lines.join(" / ")),
        });
    }
    if output.code != 0 {
        return Err(ActionError::CommandFailed {
            code: output.code,
            command: argv.join(" "),
            stderr: output.stderr,
        });
    }
    Ok(result)
}

/// Whether an install's record says it installs nothing (every VIB is in the image already).
pub(super) fn installs_nothing(result: &VibInstall) -> bool {
    result.vibs_installed.is_empty() && result.components_installed.is_empty()
}

/// What `esxcli::vib_install` returns: whether it changed the image and owes a reboot, and
/// esxcli's record. An outcome the operator assumed done (`--assume done`) has no record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VibChange {
    /// Whether the call installed anything.
    pub changed: bool,
    /// Whether esxcli said the host must reboot.
    pub reboot_required: bool,
    /// esxcli's record; none when the outcome was assumed.
    #[serde(flatten)]
    pub record: Option<VibRecord>,
}

/// What `esxcli::module_parameters_set` returns: whether it changed the module's parameters,
/// and the `name` → value maps before and after. An outcome the operator assumed done has
/// neither map; one settled on resume has no `from` when the journal did not record it. A
/// missing map is written `null`, as journals before this type hold it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ParametersChange {
    /// Whether the call set the parameters (they differed).
    pub changed: bool,
    /// The parameters set before.
    #[serde(default)]
    pub from: Option<BTreeMap<String, String>>,
    /// The parameters asked for.
    #[serde(default)]
    pub to: Option<BTreeMap<String, String>>,
}

/// The fields of esxcli's `Installation Result` a `vib_install` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VibRecord {
    /// `Message:`.
    #[serde(deserialize_with = "action::present")]
    pub message: Option<String>,
    /// `VIBs Installed:`, VIB ids (`MEL_bootbank_mft_4.22.1.11-10EM.703.0.0.18644231`).
    pub vibs_installed: Vec<String>,
    /// `VIBs Removed:`.
    pub vibs_removed: Vec<String>,
    /// `VIBs Skipped:`.
    pub vibs_skipped: Vec<String>,
}

impl VibChange {
    /// The result of an install whose record is `result`.
    pub(super) fn of(result: &VibInstall, changed: bool, reboot_required: bool) -> Self {
        Self {
            changed,
            reboot_required,
            record: Some(VibRecord {
                message: result.message.clone(),
                vibs_installed: result.vibs_installed.clone(),
                vibs_removed: result.vibs_removed.clone(),
                vibs_skipped: result.vibs_skipped.clone(),
            }),
        }
    }
}

/// `esxcli system module parameters list -m MODULE`.
pub(super) fn module_parameters(
    io: &mut HostIo<'_>,
    module: &str,
) -> Result<Vec<ModuleParameter>, ActionError> {
    let argv = command::module_parameters(module);
    action::run_parsed(io, &argv, super::parse_module_parameters)
}

/// The parameters set (a value printed and not empty), `name` → value.
pub(super) fn parameters_set(list: &[ModuleParameter]) -> BTreeMap<String, String> {
    list.iter()
        .filter_map(|p| {
            let value = p.value.as_deref().filter(|v| !v.is_empty())?;
            Some((p.name.clone(), value.to_owned()))
        })
        .collect()
}

/// `esxcli hardware pci pcipassthru list`.
pub(super) fn passthrough(io: &mut HostIo<'_>) -> Result<Vec<PciPassthru>, ActionError> {
    let argv = command::pcipassthru_list();
    action::run_parsed(io, &argv, super::parse_pcipassthru_list)
}

/// `esxcli network nic list`.
pub(super) fn nics(io: &mut HostIo<'_>) -> Result<Vec<Nic>, ActionError> {
    action::run_parsed(io, &command::nic_list(), super::parse_nic_list)
}

/// An advanced setting with `value`, its current value by type (the int for an `integer`
/// option, the string otherwise), as `esxcli::advanced_get` gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct AdvancedSetting {
    #[serde(flatten)]
    pub(super) option: AdvancedOption,
    pub(super) value: serde_json::Value,
}

impl AdvancedSetting {
    /// Whether the option is an integer one (set with `-i`, not `-s`).
    pub(super) fn is_integer(&self) -> bool {
        self.option.r#type.as_deref() == Some("integer")
    }
}

/// `esxcli system settings advanced list -o OPTION`: the option, or a failure naming it when
/// esxcli did not print it.
pub(super) fn advanced(io: &mut HostIo<'_>, option: &str) -> Result<AdvancedSetting, ActionError> {
    let argv = command::advanced_get(option);
    let options = action::run_parsed(io, &argv, super::parse_advanced)?;
    let Some(found) = options.into_iter().find(|o| o.path == option) else {
        return Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("did not print the option `{option}`"),
        });
    };
    let value = if found.r#type.as_deref() == Some("integer") {
        serde_json::json!(found.int_value)
    } else {
        serde_json::json!(found.string_value.clone().unwrap_or_default())
    };
    Ok(AdvancedSetting {
        option: found,
        value,
    })
}

/// `esxcli system maintenanceMode get`: `Enabled` or `Disabled`, anything else a failure.
pub(super) fn maintenance(io: &mut HostIo<'_>) -> Result<bool, ActionError> {
    let argv = command::maintenance_get();
    let output = action::run(io, &argv)?;
    match output.stdout.trim() {
        "Enabled" => Ok(true),
        "Disabled" => Ok(false),
        other => Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("printed `{other}`, not Enabled or Disabled"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    const MFT: &str = "/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib";

    /// An install's result and an assumed one as `vib_install` wrote them by hand before they
    /// had a type: the journal's bytes stay the same, and both read back.
    #[test]
    fn a_vib_install_journals_the_bytes_the_hand_built_record_had_and_reads_back() {
        let record = VibInstall {
            message: Some("Operation finished successfully.".into()),
            reboot_required: Some(true),
            vibs_installed: vec!["MEL_bootbank_mft_4.22.1.11-10EM.703.0.0.18644231".into()],
            vibs_skipped: vec!["MEL_bootbank_nmst_4.22.1.11-1OEM.703.0.0.18644231".into()],
            ..VibInstall::default()
        };
        let result = action::json(&record);
        let old = json!({
            "changed": true,
            "message": result["message"],
            "reboot_required": true,
            "vibs_installed": result["vibs_installed"],
            "vibs_removed": result["vibs_removed"],
            "vibs_skipped": result["vibs_skipped"],
        });
        let typed = VibChange::of(&record, true, true);
        assert_eq!(action::json(&typed).to_string(), old.to_string());
        let back: VibChange = serde_json::from_value(old).expect("reads back");
        assert_eq!(back, typed);
        let assumed = json!({ "changed": true, "reboot_required": true });
        let back: VibChange = serde_json::from_value(assumed.clone()).expect("reads back");
        assert_eq!(back.record, None);
        assert_eq!(action::json(&back), assumed);
    }

    #[test]
    fn a_replayed_vib_install_of_another_shape_is_refused_naming_the_record() {
        let args = json!({ "source": MFT, "force": true });
        let renamed = json!({ "changed": true, "message": null, "reboot_required": true, "installed": ["MEL_bootbank_mft_4.22.1.11-10EM.703.0.0.18644231"], "vibs_removed": [], "vibs_skipped": [] });
        let t = TestHost::esxi("")
            .replaying(journal_of("esxcli::vib_install", args, renamed))
            .build();
        let error = t.error(&format!(
            "esxcli::vib_install(\"{MFT}\", #{{ force: true }})"
        ));
        let expected = shape_error("esxcli::vib_install", "esxcli::vib_install's result");
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }

    /// A parameter set as journals before its type hold it (a settled one with `from: null`)
    /// replays; one whose map was renamed is refused naming the record.
    #[test]
    fn a_replayed_parameter_set_reads_back_or_is_refused_naming_the_record() {
        let args = json!({ "module": "nmlx5_core", "params": "" });
        let settled = json!({ "changed": true, "from": null, "to": {} });
        let t = TestHost::esxi("")
            .replaying(journal_of(
                "esxcli::module_parameters_set",
                args.clone(),
                settled,
            ))
            .build();
        let set = t.eval(r#"esxcli::module_parameters_set("nmlx5_core", "")"#);
        assert!(set.to_string().contains(r#""changed": true"#), "{set}");
        let renamed = json!({ "changed": true, "before": {}, "to": {} });
        let t = TestHost::esxi("")
            .replaying(journal_of("esxcli::module_parameters_set", args, renamed))
            .build();
        let error = t.error(r#"esxcli::module_parameters_set("nmlx5_core", "")"#);
        let expected = shape_error(
            "esxcli::module_parameters_set",
            "esxcli::module_parameters_set's result",
        );
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("`before`"), "{error}");
    }

    /// The table layout of `module_parameters.rs`' test (esxcli's dash columns).
    #[test]
    fn only_parameters_with_a_value_are_set() {
        let text = "Name     Type  Value  Description\n-------  ----  -----  -----------\nDRSS     int   4      Number of RSS queues\nmax_vfs  uint         Number of VFs\n";
        let list = crate::esxcli::parse_module_parameters(text).expect("real esxcli layout");
        let set = parameters_set(&list);
        assert_eq!(set.len(), 1, "{set:?}");
        assert_eq!(set.get("DRSS").map(String::as_str), Some("4"));
    }

    #[test]
    fn an_advanced_setting_journals_as_the_option_with_its_value() {
        let setting = AdvancedSetting {
            option: AdvancedOption {
                path: "/Power/CpuPolicy".into(),
                r#type: Some("string".into()),
                string_value: Some("Balanced".into()),
                ..AdvancedOption::default()
            },
            value: serde_json::json!("Balanced"),
        };
        let journaled = serde_json::to_value(&setting).expect("serializable");
        assert_eq!(journaled["path"], "/Power/CpuPolicy");
        assert_eq!(journaled["value"], "Balanced");
        let back: AdvancedSetting = serde_json::from_value(journaled).expect("reads back");
        assert_eq!(back, setting);
        assert!(!back.is_integer());
    }
}
