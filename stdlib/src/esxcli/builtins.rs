//! The `esxcli::` builtins: VIBs, driver module parameters, advanced settings, PCI passthrough,
//! NICs and maintenance mode of an ESXi host (sections 2.2 and 2.3 of VMware's vSphere 7
//! InfiniBand/RoCE guide, the Dell/VMware HPC study, VMware's vSphere 6 networking post).

use std::collections::BTreeMap;

use cairn_runtime::{ActionError, HostIo, Outcome, Reconcile};
use rhai::plugin::*;
use rhai::{Array, Dynamic, Map, NativeCallContext};
use serde_json::{Value, json};

use super::reads::{self, AdvancedSetting, ParametersChange, VibChange};
use super::{PciPassthru, VibInstall, command};
use crate::action::{self, Change, Compared, RhaiResult, full_pci};

/// The `esxcli::` module.
#[export_module]
pub mod esxcli_builtins {
    use super::*;

    /// Every VIB of the host's image, from `esxcli software vib list`: an array of
    /// `#{name, version, vendor, acceptance_level, install_date, platforms}`. A VIB installed
    /// in this boot is listed at once, though it works only after the reboot.
    ///
    /// ```rhai
    /// for v in esxcli::vib_list() { log(`${v.name} ${v.version}`); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn vib_list(ctx: NativeCallContext) -> RhaiResult<Array> {
        let vibs = action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            json!({}),
            "esxcli's VIB list",
            reads::vibs,
        )?;
        action::as_array(&vibs)
    }

    /// Whether a VIB named `name` (`mft`, `nmst`, `nmlx5-core`) is in the host's image.
    ///
    /// ```rhai
    /// if !esxcli::vib_installed("mft") { log("MFT is missing"); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn vib_installed(ctx: NativeCallContext, name: String) -> RhaiResult<bool> {
        action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            json!({ "name": name }),
            "whether a VIB is installed (a boolean)",
            |io| Ok(reads::vibs(io)?.iter().any(|vib| vib.name == name)),
        )
    }

    /// Installs a VIB file (`-v`) or an offline bundle (`-d`, a `.zip`), as
    /// `esxcli software vib install`. Idempotent: a `--dry-run` first, and nothing is installed
    /// when every VIB is already in the image at that version. Returns `#{changed, message,
    /// reboot_required, vibs_installed, vibs_removed, vibs_skipped}`; marks the host
    /// reboot-pending when esxcli answers `Reboot Required: true`.
    ///
    /// ```rhai
    /// esxcli::vib_install("/vmfs/volumes/nfs/mellanox/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib");
    /// reboot_if_pending();
    /// ```
    #[rhai_fn(name = "vib_install", volatile, return_raw)]
    pub fn vib_install(ctx: NativeCallContext, source: String) -> RhaiResult<Map> {
        install_vib(&ctx, &source, &Map::new())
    }

    /// `vib_install(source, #{force: true})`: `force` adds `-f` (the guide installs MFT and
    /// NMST with `-f`).
    ///
    /// ```rhai
    /// esxcli::vib_install("/vmfs/volumes/nfs/mellanox/nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", #{ force: true });
    /// ```
    #[rhai_fn(name = "vib_install", volatile, return_raw)]
    pub fn vib_install_with(
        ctx: NativeCallContext,
        source: String,
        options: Map,
    ) -> RhaiResult<Map> {
        install_vib(&ctx, &source, &options)
    }

    /// A driver module's parameters, from `esxcli system module parameters list -m MODULE`:
    /// an array of `#{name, type, value, description}`; `value` is `()` when unset.
    ///
    /// ```rhai
    /// let set = esxcli::module_parameters("nmlx5_core").filter(|p| p.value != ());
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn module_parameters(ctx: NativeCallContext, module: String) -> RhaiResult<Array> {
        let args = json!({ "module": module });
        let parameters = action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            args,
            "esxcli's module parameter list",
            |io| reads::module_parameters(io, &module),
        )?;
        action::as_array(&parameters)
    }

    /// Sets a driver module's parameters (`esxcli system module parameters set -m MODULE -p
    /// PARAMS`): `params` is the `-p` string (`""` clears them all, as the guide does) or a map
    /// `#{max_vfs: "0", DRSS: 4}`. Idempotent: compares with the parameters set now and changes
    /// nothing when they are the same. The driver reads them when it loads, so a change marks
    /// the host reboot-pending. Returns `#{changed, from, to}` (`name=value` maps).
    ///
    /// ```rhai
    /// esxcli::module_parameters_set("nmlx5_core", "");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn module_parameters_set(
        ctx: NativeCallContext,
        module: String,
        params: Dynamic,
    ) -> RhaiResult<Map> {
        set_parameters(&ctx, &module, &params)
    }

    /// An advanced setting, from `esxcli system settings advanced list -o OPTION`: `#{path,
    /// type, value, int_value, default_int_value, min_value, max_value, string_value,
    /// default_string_value, description, ...}`; `value` is the int or string value by type.
    ///
    /// ```rhai
    /// let policy = esxcli::advanced_get("/Power/CpuPolicy").value;
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn advanced_get(ctx: NativeCallContext, option: String) -> RhaiResult<Map> {
        let args = json!({ "option": option });
        let setting = action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            args,
            "esxcli's advanced setting",
            |io| reads::advanced(io, &option),
        )?;
        action::as_map(&setting)
    }

    /// Sets an advanced setting (`-i` for integer options, `-s` for string ones), only if it
    /// differs: `/Power/CpuPolicy` `"High Performance"` (the Dell/VMware HPC study),
    /// `/Net/NetNetqNumaIOCpuPinThreshold` 0 to 200 (VMware's vSphere 6 networking post).
    /// Applies at once. Returns `#{option, changed, from, to}`.
    ///
    /// ```rhai
    /// esxcli::advanced_set("/Power/CpuPolicy", "High Performance");
    /// esxcli::advanced_set("/Net/NetNetqNumaIOCpuPinThreshold", 100);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn advanced_set(ctx: NativeCallContext, option: String, value: Dynamic) -> RhaiResult<Map> {
        set_advanced(&ctx, &option, &value)
    }

    /// PCI passthrough state, from `esxcli hardware pci pcipassthru list`: an array of
    /// `#{device_id, enabled}` (`device_id` as `0000:3b:00.0`).
    ///
    /// ```rhai
    /// let on = esxcli::pcipassthru_list().filter(|d| d.enabled);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn pcipassthru_list(ctx: NativeCallContext) -> RhaiResult<Array> {
        let devices = action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            json!({}),
            "esxcli's passthrough list",
            reads::passthrough,
        )?;
        action::as_array(&devices)
    }

    /// Enables or disables passthrough of a PCI device (`3b:00.0` or `0000:3B:00.0`), applied
    /// at once (`-a`), only if it differs. Returns `#{device_id, enabled, changed}`.
    ///
    /// ```rhai
    /// esxcli::pcipassthru_set("0000:3b:00.0", true);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn pcipassthru_set(ctx: NativeCallContext, pci: String, enabled: bool) -> RhaiResult<Map> {
        set_passthru(&ctx, &pci, enabled)
    }

    /// The host's NICs, from `esxcli network nic list`: an array of `#{name, pci_device,
    /// driver, admin_status, link_status, speed, duplex, mac_address, mtu, description}`
    /// (`speed` in Mb/s). Ports given to passthrough are not listed.
    ///
    /// ```rhai
    /// let mellanox = esxcli::nic_list().filter(|n| n.driver == "nmlx5_core");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn nic_list(ctx: NativeCallContext) -> RhaiResult<Array> {
        let nics = action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            json!({}),
            "esxcli's NIC list",
            reads::nics,
        )?;
        action::as_array(&nics)
    }

    /// Whether the host is in maintenance mode (`esxcli system maintenanceMode get` prints
    /// `Enabled` or `Disabled`).
    ///
    /// ```rhai
    /// if esxcli::maintenance_mode() { log("in maintenance mode"); }
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn maintenance_mode(ctx: NativeCallContext) -> RhaiResult<bool> {
        action::query_typed(
            &ctx,
            crate::esxcli::NAMESPACE,
            json!({}),
            "the maintenance mode (a boolean)",
            reads::maintenance,
        )
    }

    /// Enters (`true`) or leaves (`false`) maintenance mode (`esxcli system maintenanceMode
    /// set -e true|false`), only if needed. Returns `#{enabled, changed}`.
    ///
    /// ```rhai
    /// esxcli::maintenance_mode_set(true);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn maintenance_mode_set(ctx: NativeCallContext, enabled: bool) -> RhaiResult<Map> {
        set_maintenance(&ctx, enabled)
    }
}

fn to_map(value: Dynamic) -> RhaiResult<Map> {
    value
        .try_cast::<Map>()
        .ok_or_else(|| "the result is not a map".into())
}

/// `esxcli::vib_install(source, #{...})`'s options.
pub(crate) const VIB_INSTALL_OPTIONS: cairn_runtime::BuiltinOptions =
    cairn_runtime::BuiltinOptions {
        builtin: "esxcli::vib_install",
        arg: 1,
        keys: &[crate::action::key("force", cairn_runtime::OptionType::Bool)],
    };

fn install_vib(ctx: &NativeCallContext, source: &str, options: &Map) -> RhaiResult<Map> {
    crate::action::check_options(ctx, &VIB_INSTALL_OPTIONS, options)?;
    let force = options
        .get("force")
        .and_then(|v| v.as_bool().ok())
        .unwrap_or(false);
    let source_owned = source.to_owned();
    let probe_source = source.to_owned();
    let assumed = VibChange {
        changed: true,
        reboot_required: true,
        record: None,
    };
    let change = Change {
        namespace: crate::esxcli::NAMESPACE,
        args: json!({ "source": source, "force": force }),
        assumed: action::json(&assumed),
        // Marked before installing: only an install that got that far can have changed the host.
        reconcile: Reconcile::Marked(Box::new(move |io, progress| {
            // Installed if a dry run now has nothing left to install.
            let dry = dry_run(io, &probe_source, force)?;
            if reads::installs_nothing(&dry) {
                let reboot = cairn_runtime::acted(progress)
                    .and_then(|before| before["reboot_required"].as_bool())
                    .unwrap_or(true);
                Ok(Some(Outcome {
                    changed: true,
                    reboot_required: reboot,
                    value: action::json(&VibChange::of(&dry, true, reboot)),
                }))
            } else {
                Ok(None)
            }
        })),
    };
    let installed: VibChange = change.run_staged(
        ctx,
        |io| dry_run(io, &source_owned, force),
        |_, dry| {
            if reads::installs_nothing(&dry) {
                return Ok(Compared::Same(action::json(&VibChange::of(
                    &dry, false, false,
                ))));
            }
            let reboot = dry.reboot_required.unwrap_or(true);
            let before = json!({ "reboot_required": reboot, "vibs": dry.vibs_installed });
            Ok(Compared::differs(
                action::json(&VibChange::of(&dry, true, reboot)),
                reboot,
                before,
                (),
            ))
        },
        |io, (), _| {
            let argv = command::vib_install(&source_owned, force, false);
            let result = reads::vib_install(io, &argv)?;
            let reboot = result.reboot_required.unwrap_or(false);
            let changed = !reads::installs_nothing(&result);
            Ok(Outcome {
                changed,
                reboot_required: reboot,
                value: action::json(&VibChange::of(&result, changed, reboot)),
            })
        },
        "esxcli::vib_install's result",
        super::staged::vibs_after_boot,
    )?;
    action::as_map(&installed)
}

fn dry_run(io: &mut HostIo<'_>, source: &str, force: bool) -> Result<VibInstall, ActionError> {
    reads::vib_install(io, &command::vib_install(source, force, true))
}

/// `#{a: 1, b: "x"}` or `"a=1 b=x"` → the pairs.
fn parameter_map(params: &Dynamic) -> RhaiResult<BTreeMap<String, String>> {
    if params.is_string() {
        let text = params.clone().into_string().unwrap_or_default();
        let mut pairs = BTreeMap::new();
        for pair in text.split_whitespace() {
            let Some((k, v)) = pair.split_once('=') else {
                return Err(format!("module parameter `{pair}` is not NAME=VALUE").into());
            };
            pairs.insert(k.to_owned(), v.to_owned());
        }
        return Ok(pairs);
    }
    if params.is_map() {
        let value = action::from_dynamic(params)?;
        return Ok(value
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), action::arg_text(v)))
                    .collect()
            })
            .unwrap_or_default());
    }
    Err(format!(
        "module parameters are a string (\"max_vfs=0\") or a map (#{{max_vfs: 0}}), not {}",
        params.type_name()
    )
    .into())
}

fn set_parameters(ctx: &NativeCallContext, module: &str, params: &Dynamic) -> RhaiResult<Map> {
    let wanted = parameter_map(params).map_err(|e| action::bad_argument(ctx, e.to_string()))?;
    let text = wanted
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ");
    let probe_wanted = wanted.clone();
    let probe_module = module.to_owned();
    let change = Change {
        namespace: crate::esxcli::NAMESPACE,
        args: json!({ "module": module, "params": text }),
        assumed: json!({ "changed": true }),
        // Settled by the parameters the module has now; `from` is what the set recorded
        // before it acted, when that reads as a parameter map.
        reconcile: Reconcile::Marked(Box::new(move |io, progress| {
            let now = reads::parameters_set(&reads::module_parameters(io, &probe_module)?);
            let from = cairn_runtime::acted(progress)
                .and_then(|v| serde_json::from_value::<BTreeMap<String, String>>(v.clone()).ok());
            let set = ParametersChange {
                changed: true,
                from,
                to: Some(probe_wanted.clone()),
            };
            Ok((now == probe_wanted).then(|| Outcome {
                changed: true,
                reboot_required: true,
                value: action::json(&set),
            }))
        })),
    };
    let set: ParametersChange = change.run_staged(
        ctx,
        |io| {
            Ok(reads::parameters_set(&reads::module_parameters(
                io, module,
            )?))
        },
        |_, now| {
            let acting = json!(now);
            let set = ParametersChange {
                changed: now != wanted,
                from: Some(now),
                to: Some(wanted.clone()),
            };
            if !set.changed {
                return Ok(Compared::Same(action::json(&set)));
            }
            Ok(Compared::differs(action::json(&set), true, acting, ()))
        },
        |io, (), planned| {
            action::run(io, &command::module_parameters_set(module, &text))?;
            Ok(planned)
        },
        "esxcli::module_parameters_set's result",
        |set: &ParametersChange| {
            // The driver reads its parameters when it loads: a change waits for the reboot.
            set.changed
                .then(|| super::staged::parameters_after_boot(module.to_owned(), wanted.clone()))
        },
    )?;
    action::as_map(&set)
}

fn same_advanced(current: &Value, wanted: &Value) -> bool {
    match (current, wanted) {
        (Value::Number(a), Value::Number(b)) => a.as_i64() == b.as_i64(),
        (Value::Number(a), Value::String(b)) => {
            a.as_i64().map(|a| a.to_string()) == Some(b.trim().to_owned())
        }
        (Value::String(a), b) => *a == action::arg_text(b),
        _ => false,
    }
}

fn set_advanced(ctx: &NativeCallContext, option: &str, value: &Dynamic) -> RhaiResult<Map> {
    let wanted = action::from_dynamic(value)?;
    let option_owned = option.to_owned();
    let probe_wanted = wanted.clone();
    let change = Change {
        namespace: crate::esxcli::NAMESPACE,
        args: json!({ "option": option, "value": wanted }),
        assumed: json!({ "changed": true }),
        reconcile: Reconcile::Marked(Box::new(move |io, _| {
            let now = reads::advanced(io, &option_owned)?;
            Ok(same_advanced(&now.value, &probe_wanted).then(|| Outcome {
                changed: true,
                reboot_required: false,
                value: json!({ "changed": true, "option": option_owned, "to": probe_wanted }),
            }))
        })),
    };
    let value = change.run(
        ctx,
        |io| reads::advanced(io, option),
        |_, now: AdvancedSetting| {
            let integer = now.is_integer();
            let from = now.value;
            if same_advanced(&from, &wanted) {
                return Ok(Compared::Same(
                    json!({ "changed": false, "option": option, "from": from, "to": wanted }),
                ));
            }
            let value = json!({ "changed": true, "option": option, "from": from, "to": wanted });
            Ok(Compared::differs(value, false, from, integer))
        },
        |io, integer, planned| {
            let argv = command::advanced_set(option, &action::arg_text(&wanted), integer);
            action::run(io, &argv)?;
            Ok(planned)
        },
    )?;
    to_map(value)
}

fn passthru_enabled(list: &[PciPassthru], device: &str) -> Option<bool> {
    list.iter()
        .find(|d| full_pci(&d.device_id) == device)
        .map(|d| d.enabled)
}

fn set_passthru(ctx: &NativeCallContext, pci: &str, enabled: bool) -> RhaiResult<Map> {
    let device = full_pci(pci);
    let probe_device = device.clone();
    let change = Change {
        namespace: crate::esxcli::NAMESPACE,
        args: json!({ "pci": device, "enabled": enabled }),
        assumed: json!({ "device_id": device, "enabled": enabled, "changed": true }),
        reconcile: Reconcile::Marked(Box::new(move |io, _| {
            let list = reads::passthrough(io)?;
            Ok((passthru_enabled(&list, &probe_device) == Some(enabled)).then(|| Outcome {
                changed: true,
                reboot_required: false,
                value: json!({ "device_id": probe_device, "enabled": enabled, "changed": true }),
            }))
        })),
    };
    let value = change.run(
        ctx,
        reads::passthrough,
        |io, list| {
            let Some(now) = passthru_enabled(&list, &device) else {
                return Err(ActionError::Failed(format!(
                    "`{}` has no passthrough-capable device {device}",
                    io.host()
                )));
            };
            let value =
                json!({ "device_id": device, "enabled": enabled, "changed": now != enabled });
            if now == enabled {
                return Ok(Compared::Same(value));
            }
            Ok(Compared::differs(
                value,
                false,
                json!({ "enabled": now }),
                (),
            ))
        },
        |io, (), planned| {
            action::run(io, &command::pcipassthru_set(&device, enabled))?;
            Ok(planned)
        },
    )?;
    to_map(value)
}

/// The key of a host's predicted maintenance mode in check mode.
fn maintenance_key(io: &HostIo<'_>) -> String {
    format!("esxcli::maintenance_mode {}", io.host())
}

fn set_maintenance(ctx: &NativeCallContext, on: bool) -> RhaiResult<Map> {
    let change = Change {
        namespace: crate::esxcli::NAMESPACE,
        args: json!({ "on": on }),
        assumed: json!({ "enabled": on, "changed": true }),
        reconcile: Reconcile::Marked(Box::new(move |io, _| {
            Ok((reads::maintenance(io)? == on).then(|| Outcome {
                changed: true,
                reboot_required: false,
                value: json!({ "enabled": on, "changed": true }),
            }))
        })),
    };
    let host = cairn_runtime::HostContext::current(ctx)?;
    let value = change.run(
        ctx,
        // Check mode changed nothing on the host: a state it predicted is the truth for the
        // calls after it (leaving maintenance after a predicted entering is a change).
        |io| match io.predicted(&maintenance_key(io)) {
            Some(Value::Bool(predicted)) => Ok(predicted),
            _ => reads::maintenance(io),
        },
        |io, now| {
            let value = json!({ "enabled": on, "changed": now != on });
            if now == on {
                return Ok(Compared::Same(value));
            }
            io.predict(&maintenance_key(io), json!(on));
            // Entering takes a place in the disruption budget (`--max-unavailable`), waiting
            // for one, before the mark; leaving gives it back once the host is out and the
            // outcome journaled (below), so no journal shows the next host going down first.
            if on && !io.checking() {
                host.take_budget(cairn_runtime::Disruption::Maintenance)?;
            }
            Ok(Compared::differs(
                value,
                false,
                json!({ "enabled": now }),
                (),
            ))
        },
        |io, (), planned| {
            action::run(io, &command::maintenance_set(on))?;
            Ok(planned)
        },
    )?;
    if !on {
        host.release_budget(cairn_runtime::Disruption::Maintenance);
    }
    to_map(value)
}

#[cfg(test)]
mod tests {
    use crate::test_support::{INSTALL_TOOLS, TestHost};

    #[test]
    fn vib_install_is_idempotent_and_the_tools_come_after_the_reboot() {
        let t = TestHost::esxi("").build();
        assert!(
            !t.eval(r#"esxcli::vib_installed("mft")"#)
                .as_bool()
                .unwrap_or(true)
        );
        let first = t.eval(r#"esxcli::vib_install("/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{force: true})"#);
        assert!(first.to_string().contains(r#""changed": true"#), "{first}");
        assert!(t.reboot_pending());
        assert!(t.error("mst::status()").contains("not installed"));
        let again = t.eval(r#"esxcli::vib_install("/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{force: true}).changed"#);
        assert!(!again.as_bool().unwrap_or(true));
        t.run(INSTALL_TOOLS);
        assert!(!t.reboot_pending());
        assert_eq!(t.eval("mst::status().len()").as_int().unwrap_or(0), 4);
        assert!(
            t.eval(r#"esxcli::vib_installed("nmst")"#)
                .as_bool()
                .unwrap_or(false)
        );
        let bad = t.error(r#"esxcli::vib_install("/n/other.zip")"#);
        assert!(bad.contains("MetadataDownloadError"), "{bad}");
    }

    #[test]
    fn module_parameters_clear_once_and_owe_a_reboot() {
        let t = TestHost::esxi("").build();
        let before = t.eval(
            r#"esxcli::module_parameters("nmlx5_core").filter(|p| p.value != ()).map(|p| p.name)"#,
        );
        assert_eq!(before.to_string(), r#"["max_vfs"]"#);
        let set = t.eval(r#"esxcli::module_parameters_set("nmlx5_core", "")"#);
        assert!(set.to_string().contains(r#""changed": true"#), "{set}");
        assert!(t.reboot_pending());
        let t = t.again(false);
        assert!(
            !t.eval(r#"esxcli::module_parameters_set("nmlx5_core", "").changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert!(!t.reboot_pending());
        let map = t.eval(
            r#"esxcli::module_parameters_set("nmlx5_core", #{ num_rings_per_rss_queue: 4 })"#,
        );
        assert!(map.to_string().contains(r#""changed": true"#), "{map}");
        assert!(
            t.error(r#"esxcli::module_parameters_set("nmlx5_core", "nonsense")"#)
                .contains("NAME=VALUE")
        );
    }

    #[test]
    fn advanced_passthrough_and_maintenance_change_only_what_differs() {
        let t = TestHost::esxi("").build();
        assert_eq!(
            t.eval(r#"esxcli::advanced_get("/Power/CpuPolicy").value"#)
                .to_string(),
            "Balanced"
        );
        assert!(
            t.eval(r#"esxcli::advanced_set("/Power/CpuPolicy", "High Performance").changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            !t.eval(r#"esxcli::advanced_set("/Power/CpuPolicy", "High Performance").changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert!(
            t.eval(r#"esxcli::advanced_set("/Net/NetNetqNumaIOCpuPinThreshold", 100).changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert_eq!(
            t.eval(r#"esxcli::advanced_get("/Net/NetNetqNumaIOCpuPinThreshold").value"#)
                .as_int()
                .unwrap_or(0),
            100
        );
        assert!(
            t.error(r#"esxcli::advanced_set("/Net/NetNetqNumaIOCpuPinThreshold", 500)"#)
                .contains("between 0 and 200")
        );
        assert!(
            t.eval(r#"esxcli::pcipassthru_set("3B:00.0", true).changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            !t.eval(r#"esxcli::pcipassthru_set("0000:3b:00.0", true).changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert_eq!(
            t.eval("esxcli::pcipassthru_list().filter(|d| d.enabled).len()")
                .as_int()
                .unwrap_or(0),
            1
        );
        assert_eq!(
            t.eval("esxcli::nic_list().len()").as_int().unwrap_or(0),
            3,
            "a passed-through port leaves the NIC list"
        );
        assert!(
            t.error(r#"esxcli::pcipassthru_set("5e:00.0", true)"#)
                .contains("no passthrough-capable device")
        );
        assert!(
            t.eval("esxcli::maintenance_mode_set(true).changed")
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            !t.eval("esxcli::maintenance_mode_set(true).changed")
                .as_bool()
                .unwrap_or(true)
        );
        assert!(!t.reboot_pending());
    }

    #[test]
    fn check_mode_reports_and_changes_nothing() {
        let t = TestHost::esxi("").check(true).build();
        t.run(r#"
            esxcli::vib_install("/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{force: true});
            esxcli::module_parameters_set("nmlx5_core", "");
            esxcli::advanced_set("/Power/CpuPolicy", "High Performance");
            esxcli::pcipassthru_set("3b:00.0", true);
            esxcli::maintenance_mode_set(true);
            esxcli::maintenance_mode_set(true);
            esxcli::maintenance_mode_set(false);
        "#);
        // The second entering sees the first's prediction (no change); leaving after it is one.
        assert_eq!(t.changes().len(), 6, "{:?}", t.changes());
        assert!(t.reboot_pending());
        for argv in t.commands("esx01") {
            let text = argv.join(" ");
            assert!(
                text.contains("--dry-run") || text.contains(" list") || text.ends_with(" get"),
                "{text}"
            );
        }
        assert!(
            !t.eval(r#"esxcli::vib_installed("mft")"#)
                .as_bool()
                .unwrap_or(true)
        );
    }

    #[test]
    fn hostile_values_arrive_as_one_literal_argument() {
        let t = TestHost::esxi("").build();
        let hostile = "nmlx5_core; reboot $(reboot) `id` \"q\" 'q'\nsecond";
        let error = t.error(
            r#"esxcli::module_parameters("nmlx5_core; reboot $(reboot) `id` \"q\" 'q'\nsecond")"#,
        );
        assert!(error.contains("Unable to find module"), "{error}");
        let sent = t.commands("esx01");
        let last = sent.last();
        assert_eq!(
            last,
            Some(&crate::esxcli::command::module_parameters(hostile))
        );
        assert_eq!(
            last.and_then(|argv| argv.last()).map(String::as_str),
            Some(hostile),
            "the module name is one argument, as written"
        );
        assert!(
            t.commands("esx01")
                .iter()
                .all(|a| a.first().is_some_and(|p| p != "reboot"))
        );
    }

    #[test]
    fn maintenance_mode_reads_back_and_is_set_only_when_it_differs() {
        let t = TestHost::esxi("").build();
        assert_eq!(t.eval("esxcli::maintenance_mode()").to_string(), "false");
        let set = t.eval("esxcli::maintenance_mode_set(true).changed");
        assert_eq!(set.to_string(), "true");
        assert_eq!(t.eval("esxcli::maintenance_mode()").to_string(), "true");
        let again = t.eval("esxcli::maintenance_mode_set(true).changed");
        assert_eq!(again.to_string(), "false");
        let sets = t
            .commands("esx01")
            .iter()
            .filter(|a| a.iter().any(|w| w == "set") && a.iter().any(|w| w == "maintenanceMode"))
            .count();
        assert_eq!(sets, 1);
    }
}
