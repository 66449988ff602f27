//! The `mlxfwmanager::` builtins: an adapter's firmware versions, and online updates
//! (VMware's guide section 2.2.1).

use cairn_runtime::{ActionError, Outcome, Reconcile};
use rhai::plugin::*;

/// `mlxfwmanager::update(dev, #{...})`'s options.
pub(crate) const UPDATE_OPTIONS: cairn_runtime::BuiltinOptions = cairn_runtime::BuiltinOptions {
    builtin: "mlxfwmanager::update",
    arg: 1,
    keys: &[crate::action::key(
        "online",
        cairn_runtime::OptionType::Bool,
    )],
};
use rhai::{Map, NativeCallContext};
use serde_json::json;

use super::command;
use super::reads::{self, FirmwareQuery, FirmwareUpdate, PredictedFirmware, Versions};
use crate::action::{self, Change, Compared, RhaiResult};

/// The `mlxfwmanager::` module.
#[export_module]
pub mod mlxfwmanager_builtins {
    use super::*;

    /// A device's firmware (`3b:00.0` or `mt4119_pciconf1`), from `mlxfwmanager -d DEV`:
    /// `#{device_type, part_number, description, psid, pci_device_name, base_guid, base_mac,
    /// versions: [#{component, current, available}], status, fw, fw_available,
    /// update_available}` (`fw` and `fw_available` are the FW row; `available` is `()` for
    /// `N/A`). In check mode, on a host where MFT is not installed yet: `#{predicted: true,
    /// update_available: false}` with `part_number`, `psid`, `fw` and `fw_available` reading
    /// `unknown until MFT is installed`.
    ///
    /// ```rhai
    /// let fw = mlxfwmanager::query("3b:00.0");
    /// log(`${fw.psid}: FW ${fw.fw}, available ${fw.fw_available}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn query(ctx: NativeCallContext, dev: String) -> RhaiResult<Map> {
        let query = action::query_typed(
            &ctx,
            crate::mlxfwmanager::NAMESPACE,
            json!({ "device": dev }),
            "mlxfwmanager's device query",
            |io| match reads::device_firmware(io, &dev)? {
                Some(device) => Ok(FirmwareQuery::Found(Box::new(device))),
                None if io.checking() => Ok(FirmwareQuery::Predicted(
                    PredictedFirmware::unknown_until_mft(),
                )),
                None => Err(action::not_installed("mlxfwmanager", io.host())),
            },
        )?;
        action::as_map(&query)
    }

    /// Updates a device's firmware when a newer image is available (`mlxfwmanager --online -u
    /// -d DEV -f -y` with `#{online: true}`): queries first and changes nothing when the device
    /// is up to date or no image matches. The new firmware runs after a reboot, so an update
    /// marks the host reboot-pending. Returns `#{changed, from, to, reboot_required}`.
    ///
    /// ```rhai
    /// mlxfwmanager::update("3b:00.0", #{ online: true });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn update(ctx: NativeCallContext, dev: String, options: Map) -> RhaiResult<Map> {
        crate::action::check_options(&ctx, &super::UPDATE_OPTIONS, &options)?;
        let online = options
            .get("online")
            .and_then(|v| v.as_bool().ok())
            .unwrap_or(false);
        let probe_dev = dev.clone();
        let change = Change {
            namespace: crate::mlxfwmanager::NAMESPACE,
            args: json!({ "device": dev, "online": online }),
            assumed: json!({ "changed": true, "reboot_required": true }),
            // Settled by the flashed version: burnt if the device now runs the image the update
            // recorded it was burning (no image at all is not a burn). A record that does not
            // read as the versions it journals settles nothing: the resume asks.
            reconcile: Reconcile::Marked(Box::new(move |io, progress| {
                let Some(before) = cairn_runtime::acted(progress)
                    .and_then(|v| serde_json::from_value::<Versions>(v.clone()).ok())
                else {
                    return Ok(None);
                };
                let Some(device) = reads::device_firmware(io, &probe_dev)? else {
                    return Ok(None);
                };
                let burnt = before.to.is_some() && device.fw == before.to;
                Ok(burnt.then(|| Outcome {
                    changed: true,
                    reboot_required: true,
                    value: action::json(&FirmwareUpdate::burnt(before.from, device.fw, true)),
                }))
            })),
        };
        let update: FirmwareUpdate = change.run_staged(
            &ctx,
            |io| reads::device_firmware(io, &dev),
            |io, device| {
                let Some(device) = device else {
                    if io.checking() {
                        return Ok(Compared::Same(action::json(&FirmwareUpdate::predicted())));
                    }
                    return Err(action::not_installed("mlxfwmanager", io.host()));
                };
                let (from, to) = (device.fw, device.fw_available);
                if !device.update_available {
                    let same = FirmwareUpdate::unchanged(from);
                    return Ok(Compared::Same(action::json(&same)));
                }
                let burning = Versions {
                    from: from.clone(),
                    to: to.clone(),
                };
                let value = action::json(&FirmwareUpdate::burnt(from, to, true));
                Ok(Compared::differs(
                    value,
                    true,
                    action::json(&burning),
                    burning,
                ))
            },
            |io, burning, mut planned| {
                let argv = command::update(&dev, online);
                let parsed = action::run_parsed(io, &argv, crate::mlxfwmanager::parse)?;
                // The tool's own failure (`Fail : REASON`, `-E-`) with its words and line.
                if let Some(error) = &parsed.error {
                    return Err(ActionError::ToolSaid {
                        command: argv.join(" "),
                        said: format!("{} (line {})", error.message, error.line),
                    });
                }
                if parsed.updates.iter().any(|u| !u.done) {
                    return Err(ActionError::ToolSaid {
                        command: argv.join(" "),
                        said: "did not finish: an update printed no `Done`".into(),
                    });
                }
                // mlxfwmanager says whether the new image needs a restart to run.
                let burnt = FirmwareUpdate::burnt(burning.from, burning.to, parsed.restart_needed);
                planned.reboot_required = parsed.restart_needed;
                planned.value = action::json(&burnt);
                Ok(planned)
            },
            "mlxfwmanager::update's result",
            |update| crate::mlxfwmanager::staged::firmware_after_boot(&dev, update),
        )?;
        action::as_map(&update)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{INSTALL_TOOLS, TestHost};

    #[test]
    fn the_guides_device_has_no_update() {
        let t = TestHost::esxi("").build();
        t.run(INSTALL_TOOLS);
        let fw = t.eval(r#"let f = mlxfwmanager::query("3b:00.0"); [f.psid, f.fw, f.fw_available, f.update_available, f.part_number]"#);
        assert_eq!(
            fw.to_string(),
            r#"["MT_0000000008", "16.32.1010", (), false, "MCX556A-ECA_Ax"]"#
        );
        assert!(
            !t.eval(r#"mlxfwmanager::update("3b:00.0", #{ online: true }).changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert_eq!(
            t.eval(r#"flint::query("3b:00.0").psid"#).to_string(),
            "MT_0000000008"
        );
    }

    #[test]
    fn an_available_image_is_burnt_once_and_owes_a_reboot() {
        let t = TestHost::esxi("fw_available=16.35.2000").build();
        t.run(INSTALL_TOOLS);
        assert!(
            t.eval(r#"mlxfwmanager::query("mt4119_pciconf1").update_available"#)
                .as_bool()
                .unwrap_or(false)
        );
        let update = t.eval(r#"mlxfwmanager::update("3b:00.0", #{ online: true })"#);
        assert!(update.to_string().contains("16.35.2000"), "{update}");
        assert!(t.reboot_pending());
        assert!(
            !t.eval(r#"mlxfwmanager::update("3b:00.0", #{ online: true }).changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert_eq!(
            t.eval(r#"flint::query("3b:00.0").fw_version"#).to_string(),
            "16.35.2000"
        );
        assert_eq!(
            t.commands("esx01")
                .iter()
                .filter(|a| a.iter().any(|x| x == "-u"))
                .count(),
            1
        );
    }
}
