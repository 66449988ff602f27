//! What the `mlxconfig::` builtins read from a host, as typed values: `query` journals a
//! [`DeviceQuery`] (`action::query_typed`) and `set` plans from one, so a replayed query of
//! another shape is refused naming the record.

use cairn_runtime::{ActionError, HostIo};

use super::{DeviceHeader, DeviceQuery, Messages, ParamValues, QueryDevice, command};
use crate::action;

/// `mlxconfig -d DEV -e query`: the device's block and its parameters by name; `None` when
/// mlxconfig is not installed.
pub(super) fn device(io: &mut HostIo<'_>, dev: &str) -> Result<Option<DeviceQuery>, ActionError> {
    let argv = command::query(dev);
    let Some(output) = action::run_if_installed(io, &argv)? else {
        return Ok(None);
    };
    let parsed = action::parsed(&argv, &output.stdout, super::parse_query)?;
    let Some(device) = parsed.devices.into_iter().next() else {
        return Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("printed no device{}", errors_of(&parsed.messages.errors)),
        });
    };
    if !device.messages.errors.is_empty() {
        return Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("failed{}", errors_of(&device.messages.errors)),
        });
    }
    let params = device
        .configurations
        .iter()
        .map(|p| {
            let values = ParamValues {
                default: p.default.clone(),
                current: p.current.clone(),
                next_boot: p.next_boot.clone(),
                modified: p.modified,
            };
            (p.name.clone(), values)
        })
        .collect();
    Ok(Some(DeviceQuery {
        device,
        params,
        predicted: false,
        unknown: None,
    }))
}

/// Check mode's answer before MFT is installed: the device asked for, no parameters.
pub(super) fn predicted(dev: &str) -> DeviceQuery {
    DeviceQuery {
        device: QueryDevice {
            header: DeviceHeader {
                device: Some(dev.to_owned()),
                ..DeviceHeader::default()
            },
            configurations: Vec::new(),
            messages: Messages::default(),
        },
        params: std::collections::BTreeMap::new(),
        predicted: true,
        unknown: Some(action::UNKNOWN_UNTIL_MFT.to_owned()),
    }
}

/// The tool's `-E-` lines after a colon, or nothing.
pub(super) fn errors_of(errors: &[String]) -> String {
    if errors.is_empty() {
        String::new()
    } else {
        format!(": {}", errors.join(" / "))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::test_support::{INSTALL_TOOLS, TestHost};
    use crate::test_support::{journal_of, shape_error};

    #[test]
    fn a_replayed_query_or_set_of_another_shape_is_refused_naming_the_record() {
        let t = TestHost::esxi("").build();
        t.run(INSTALL_TOOLS);
        let live = t.eval(r#"mlxconfig::query("mt4119_pciconf1")"#);
        let mut query: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        let psid = query["psid"].take();
        query["board_id"] = psid;
        if let Some(map) = query.as_object_mut() {
            map.remove("psid");
        }
        let args = json!({ "device": "mt4119_pciconf1" });
        let t = TestHost::esxi("")
            .replaying(journal_of("mlxconfig::query", args, query))
            .build();
        let error = t.error(r#"mlxconfig::query("mt4119_pciconf1")"#);
        let expected = shape_error("mlxconfig::query", "mlxconfig's device query");
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("`board_id`"), "{error}");

        let args = json!({ "device": "mt4119_pciconf1", "values": { "LINK_TYPE_P1": "IB" } });
        let set = json!({ "device": "mt4119_pciconf1", "changed": { "LINK_TYPE_P1": "IB" }, "reboot_required": true });
        let t = TestHost::esxi("")
            .replaying(journal_of("mlxconfig::set", args, set))
            .build();
        let error = t.error(r#"mlxconfig::set("mt4119_pciconf1", #{ LINK_TYPE_P1: "IB" })"#);
        let expected = shape_error("mlxconfig::set", "mlxconfig::set's result");
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }
}
