//! What the `esxcli::` builtins read from a host, as the parsers' types: the builtins journal
//! these values (`action::query_typed`), the changes compare with them and the reboot-loop
//! breaker's checks (`staged.rs`) read them back, so no file needs another's helpers.

use std::collections::BTreeMap;

use cairn_runtime::{ActionError, HostIo};
use serde::{Deserialize, Serialize};

use super::{AdvancedOption, ModuleParameter, Nic, PciPassthru, Vib, command};
use crate::action;

/// `esxcli software vib list`: every VIB of the host's image.
pub(super) fn vibs(io: &mut HostIo<'_>) -> Result<Vec<Vib>, ActionError> {
    action::run_parsed(io, &command::vib_list(), super::parse_vib_list)
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
    use super::*;

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
                int_value: None,
                default_int_value: None,
                min_value: None,
                max_value: None,
                string_value: Some("Balanced".into()),
                default_string_value: None,
                valid_characters: None,
                description: None,
                host_specific: None,
                impact: None,
                other: BTreeMap::new(),
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
