//! What the `mlxfwmanager::` builtins read from a host, as typed values: `query` journals a
//! [`FirmwareQuery`] (`action::query_typed`), `update` compares with a [`DeviceFirmware`] and
//! the reboot-loop breaker's check (`staged.rs`) reads one back, so no file needs another's
//! helpers.

use cairn_runtime::{ActionError, HostIo};
use serde::{Deserialize, Deserializer, Serialize};

use super::{FwDevice, command};
use crate::action;

/// A device's query with its `FW` row read out: the version on the adapter, the one of the
/// matching image, and whether they differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceFirmware {
    #[serde(flatten)]
    pub device: FwDevice,
    pub update_available: bool,
    #[serde(deserialize_with = "action::present")]
    pub fw: Option<String>,
    #[serde(deserialize_with = "action::present")]
    pub fw_available: Option<String>,
}

impl DeviceFirmware {
    /// The firmware the adapter runs now: the `FW (Running)` row while a burnt image awaits a
    /// reset, else the `FW` row.
    pub(super) fn running(&self) -> Option<&str> {
        self.device
            .versions
            .iter()
            .find(|row| row.component == "FW (Running)")
            .and_then(|row| row.current.as_deref())
            .or(self.fw.as_deref())
    }
}

/// In check mode on a host where MFT is not installed yet: what the query would read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictedFirmware {
    pub predicted: bool,
    pub update_available: bool,
    pub part_number: String,
    pub psid: String,
    pub fw: String,
    pub fw_available: String,
}

impl PredictedFirmware {
    pub(super) fn unknown_until_mft() -> Self {
        let unknown = action::UNKNOWN_UNTIL_MFT.to_owned();
        Self {
            predicted: true,
            update_available: false,
            part_number: unknown.clone(),
            psid: unknown.clone(),
            fw: unknown.clone(),
            fw_available: unknown,
        }
    }
}

/// What `mlxfwmanager::query` gives a script: the device, or (check mode) its prediction.
/// Journaled as the inner value alone, so the map a script reads is the same either way.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FirmwareQuery {
    Found(Box<DeviceFirmware>),
    Predicted(PredictedFirmware),
}

/// Read back by `predicted`, so a record of another shape fails with the field that is wrong
/// (an untagged enum would only say that no variant matched).
impl<'de> Deserialize<'de> for FirmwareQuery {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let read = if value["predicted"] == true {
            serde_json::from_value(value).map(FirmwareQuery::Predicted)
        } else {
            serde_json::from_value(value).map(FirmwareQuery::Found)
        };
        read.map_err(serde::de::Error::custom)
    }
}

/// What `mlxfwmanager::update` returns: whether it burnt an image, the versions before and
/// after, and whether a reboot is owed. An outcome assumed done has no versions; check mode
/// before MFT is installed says `predicted` and nothing else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirmwareUpdate {
    pub changed: bool,
    #[serde(flatten)]
    pub versions: Option<Versions>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reboot_required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<bool>,
}

impl FirmwareUpdate {
    /// An image burnt from `from` to `to`.
    pub(super) fn burnt(from: Option<String>, to: Option<String>, reboot_required: bool) -> Self {
        Self {
            changed: true,
            versions: Some(Versions { from, to }),
            reboot_required: Some(reboot_required),
            predicted: None,
        }
    }

    /// No image to burn: the device stays at `fw`.
    pub(super) fn unchanged(fw: Option<String>) -> Self {
        Self {
            changed: false,
            versions: Some(Versions {
                from: fw.clone(),
                to: fw,
            }),
            reboot_required: Some(false),
            predicted: None,
        }
    }

    /// Check mode before MFT is installed: nothing known, nothing burnt.
    pub(super) fn predicted() -> Self {
        Self {
            changed: false,
            versions: None,
            reboot_required: None,
            predicted: Some(true),
        }
    }
}

/// The firmware before and after an update (the same when there was none to burn).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versions {
    #[serde(deserialize_with = "action::present")]
    pub from: Option<String>,
    #[serde(deserialize_with = "action::present")]
    pub to: Option<String>,
}

/// `mlxfwmanager -d DEV --query`: the device's firmware; `None` when mlxfwmanager is not
/// installed.
pub(super) fn device_firmware(
    io: &mut HostIo<'_>,
    dev: &str,
) -> Result<Option<DeviceFirmware>, ActionError> {
    let argv = command::query(dev);
    let Some(output) = action::run_if_installed(io, &argv)? else {
        return Ok(None);
    };
    let parsed = action::parsed(&argv, &output.stdout, super::parse)?;
    let Some(device) = parsed.devices.into_iter().next() else {
        return Err(ActionError::ToolSaid {
            command: argv.join(" "),
            said: format!("listed no device: {}", parsed.errors.join(" / ")),
        });
    };
    let fw = device.versions.iter().find(|v| v.component == "FW");
    let current = fw.and_then(|v| v.current.clone());
    let available = fw.and_then(|v| v.available.clone());
    Ok(Some(DeviceFirmware {
        update_available: matches!((&current, &available), (Some(c), Some(a)) if c != a),
        fw: current,
        fw_available: available,
        device,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real `mlxfwmanager -d DEV` on ESXi 7 (the fixture's first line says where from).
    const FIXTURE: &str = include_str!(
        "../../../tests/fixtures/mlxfwmanager/esxi7-cx5-d-wrapped-description-vmware-guide.txt"
    );

    fn found() -> FirmwareQuery {
        let text = FIXTURE.split_once('\n').map_or(FIXTURE, |(_, rest)| rest);
        let parsed = super::super::parse(text).expect("the fixture parses");
        let device = parsed.devices.into_iter().next().expect("one device");
        FirmwareQuery::Found(Box::new(DeviceFirmware {
            device,
            update_available: false,
            fw: Some("16.32.1010".into()),
            fw_available: None,
        }))
    }

    #[test]
    fn both_shapes_read_back_as_journaled() {
        for query in [
            found(),
            FirmwareQuery::Predicted(PredictedFirmware::unknown_until_mft()),
        ] {
            let journaled = serde_json::to_value(&query).expect("serializable");
            let back: FirmwareQuery = serde_json::from_value(journaled).expect("reads back");
            assert_eq!(back, query);
        }
    }

    #[test]
    fn every_update_shape_reads_back_as_journaled() {
        use serde_json::json;
        for journaled in [
            json!({ "changed": true, "reboot_required": true }),
            json!({ "changed": false, "predicted": true }),
            json!({ "changed": true, "from": "16.32.1010", "to": "16.35.2000", "reboot_required": true }),
            json!({ "changed": false, "from": null, "to": null, "reboot_required": false }),
        ] {
            let back: FirmwareUpdate =
                serde_json::from_value(journaled.clone()).expect("reads back");
            assert_eq!(action::json(&back), journaled);
        }
    }

    #[test]
    fn a_replayed_update_of_another_shape_is_refused_naming_the_record() {
        use crate::test_support::TestHost;
        use crate::test_support::{journal_of, shape_error};
        let args = serde_json::json!({ "device": "3b:00.0", "online": true });
        let update = serde_json::json!({ "changed": true, "from": "16.32.1010", "firmware": "16.35.2000", "reboot_required": true });
        let t = TestHost::esxi("")
            .replaying(journal_of("mlxfwmanager::update", args, update))
            .build();
        let error = t.error(r#"mlxfwmanager::update("3b:00.0", #{ online: true })"#);
        let expected = shape_error("mlxfwmanager::update", "mlxfwmanager::update's result");
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("`firmware`"), "{error}");
    }

    #[test]
    fn a_renamed_field_is_refused_naming_it() {
        let mut journaled = serde_json::to_value(found()).expect("serializable");
        let fw = journaled["fw"].take();
        journaled["firmware"] = fw;
        if let Some(map) = journaled.as_object_mut() {
            map.remove("fw");
        }
        let error = serde_json::from_value::<FirmwareQuery>(journaled)
            .err()
            .map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("`fw`")),
            "{error:?}"
        );
    }
}
