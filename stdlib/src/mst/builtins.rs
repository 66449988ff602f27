//! The `mst::` builtins: start the MST service and list the ConnectX devices it sees
//! (reference 000 section 2.2.1).

use cairn_runtime::{ActionCall, ActionError, HostIo, Outcome, Reconcile};
use rhai::plugin::*;
use rhai::{Array, NativeCallContext};
use serde_json::{Value, json};

use super::command;
use crate::action::{self, Change, Compared, RhaiResult};
use crate::grammar::esxcli::nic_list;

/// The `mst::` module.
#[export_module]
pub mod mst_builtins {
    use super::*;

    /// Starts the MST service (`mst start`) unless `mst status` already lists devices.
    /// Returns `#{changed}`. Fails when MFT is not installed (in check mode it reports that it
    /// would start).
    ///
    /// ```rhai
    /// mst::start();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn start(ctx: NativeCallContext) -> RhaiResult<rhai::Map> {
        let change = Change::redo(crate::mst::NAMESPACE, json!({}), json!({ "changed": true }));
        let value = change.run(
            &ctx,
            status_of,
            |io, status| match status {
                Some(devices) if devices.iter().any(|d| d["mst"] != "NA") => {
                    Ok(Compared::Same(json!({ "changed": false })))
                }
                None if !io.checking() => Err(action::not_installed("mst", io.host())),
                _ => Ok(Compared::unmarked(json!({ "changed": true }), ())),
            },
            |io, (), planned| {
                action::run(io, &command::start())?;
                Ok(planned)
            },
        )?;
        action::result_as(&ctx, value)
    }

    /// Restarts the MST service (`mst restart`), which the guide does "to get a stable device
    /// name". It changes no configuration, so it is never counted as a change; in check mode
    /// it does nothing.
    ///
    /// ```rhai
    /// mst::restart();
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn restart(ctx: NativeCallContext) -> RhaiResult<()> {
        let call = ActionCall {
            args: json!({}),
            assumed: Value::Null,
            builtin: action::builtin_name(&ctx, crate::mst::NAMESPACE),
            reconcile: Reconcile::Redo,
        };
        let _ = action::act(&ctx, call, |io| {
            if !io.checking() {
                match action::run_if_installed(io, &command::restart())? {
                    Some(_) => {}
                    None => return Err(action::not_installed("mst", io.host())),
                }
            }
            Ok(Outcome::unchanged(Value::Null))
        })?;
        Ok(())
    }

    /// The ConnectX ports MST sees, from `mst status -vv`: an array of `#{device_type, type,
    /// revision, mst, pci, port, rdma, net, numa}`, e.g. `#{device_type: "ConnectX5(rev:0)",
    /// type: "ConnectX5", revision: 0, mst: "mt4119_pciconf1", pci: "3b:00.0", port: 1}`
    /// (`port` is the PCI function plus one). Empty before `mst::start()`. In check mode, on a
    /// host where MFT is not installed yet, the ports are predicted from `esxcli network nic
    /// list` (with `predicted: true`).
    ///
    /// ```rhai
    /// let cx5 = mst::status().filter(|d| d.type == "ConnectX5");
    /// log(`port 1 is ${cx5[0].pci} (${cx5[0].mst})`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn status(ctx: NativeCallContext) -> RhaiResult<Array> {
        let value = action::query(
            &ctx,
            crate::mst::NAMESPACE,
            json!({}),
            |io| match status_of(io)? {
                Some(devices) => Ok(Value::Array(devices)),
                None if io.checking() => predict(io),
                None => Err(action::not_installed("mst", io.host())),
            },
        )?;
        action::result_as(&ctx, value)
    }
}

/// `mst status -vv`'s devices, enriched; `None` when mst is not installed.
fn status_of(io: &mut HostIo<'_>) -> Result<Option<Vec<Value>>, ActionError> {
    let argv = command::status();
    let Some(output) = action::run_if_installed(io, &argv)? else {
        return Ok(None);
    };
    let parsed = action::parsed(&argv, &output.stdout, crate::mst::parse_status)?;
    Ok(Some(
        parsed
            .pci_devices
            .iter()
            .map(|d| enrich(action::json(d)))
            .collect(),
    ))
}

/// Adds `type`, `revision` and `port` to a `pci_devices` row.
fn enrich(mut device: Value) -> Value {
    let device_type = device["device_type"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let (kind, revision) = match device_type.split_once("(rev:") {
        Some((kind, rest)) => (
            kind.to_owned(),
            rest.trim_end_matches(')').parse::<i64>().ok(),
        ),
        None => (device_type.clone(), None),
    };
    let port = device["pci"]
        .as_str()
        .and_then(|pci| pci.rsplit('.').next())
        .and_then(|f| f.parse::<i64>().ok())
        .map(|f| f + 1);
    device["type"] = json!(kind);
    device["revision"] = json!(revision);
    device["port"] = json!(port);
    device
}

/// mst's names for the ConnectX families esxcli describes: `[ConnectX-5]` → `ConnectX5`, mt4119.
const FAMILIES: &[(&str, &str, u32)] = &[
    ("[ConnectX-4 Lx]", "ConnectX4LX", 4117),
    ("[ConnectX-4]", "ConnectX4", 4115),
    ("[ConnectX-5 Ex]", "ConnectX5EX", 4121),
    ("[ConnectX-5]", "ConnectX5", 4119),
    ("[ConnectX-6 Dx]", "ConnectX6DX", 4125),
    ("[ConnectX-6 Lx]", "ConnectX6LX", 4127),
    ("[ConnectX-6]", "ConnectX6", 4123),
    ("[ConnectX-7]", "ConnectX7", 4129),
];

/// Check mode before MFT is installed: the ports mst would list, from the NIC list and mst's
/// naming (`mt<device id>_pciconf<adapter index>`, `.1` for the second function).
fn predict(io: &mut HostIo<'_>) -> Result<Value, ActionError> {
    let argv: Vec<String> = nic_list::COMMAND.iter().map(|s| (*s).to_owned()).collect();
    let nics = action::run_parsed(io, &argv, nic_list::parse)?;
    let mut ports: Vec<(String, &str, u32)> = nics
        .iter()
        .filter_map(|nic| {
            let description = nic.description.as_deref()?;
            let (_, kind, id) = FAMILIES
                .iter()
                .find(|(tag, _, _)| description.contains(tag))?;
            let pci = nic.pci_device.as_deref()?.to_ascii_lowercase();
            let pci = pci.strip_prefix("0000:").unwrap_or(&pci).to_owned();
            Some((pci, *kind, *id))
        })
        .collect();
    ports.sort();
    let mut buses: Vec<String> = ports.iter().map(|(pci, _, _)| bus(pci)).collect();
    buses.dedup();
    let devices = ports
        .iter()
        .map(|(pci, kind, id)| {
            let index = buses.iter().position(|b| *b == bus(pci)).unwrap_or(0);
            let function = pci.rsplit('.').next().unwrap_or("0");
            let mst = if function == "0" {
                format!("mt{id}_pciconf{index}")
            } else {
                format!("mt{id}_pciconf{index}.{function}")
            };
            let mut device = enrich(json!({
                "device_type": format!("{kind}(rev:0)"), "mst": mst, "pci": pci,
                "rdma": null, "net": null, "numa": null,
            }));
            device["predicted"] = json!(true);
            device
        })
        .collect();
    Ok(Value::Array(devices))
}

fn bus(pci: &str) -> String {
    pci.split(':').next().unwrap_or_default().to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_gain_type_revision_and_port() {
        let row = serde_json::json!({"device_type": "ConnectX5(rev:0)", "mst": "mt4119_pciconf1.1", "pci": "3b:00.1"});
        let row = super::enrich(row);
        assert_eq!(row["type"], "ConnectX5");
        assert_eq!(row["revision"], 0);
        assert_eq!(row["port"], 2);
    }
}

#[cfg(test)]
mod engine_tests {
    use crate::test_support::esxi_host::{INSTALL_TOOLS, TestHost};

    #[test]
    fn status_lists_the_guides_ports_once_started() {
        let t = TestHost::new("", false);
        assert!(t.error("mst::start()").contains("not installed"));
        t.run(INSTALL_TOOLS);
        assert_eq!(
            t.changes()
                .iter()
                .filter(|c| c.starts_with("mst::start"))
                .count(),
            1
        );
        let cx5 = t.eval(r#"mst::status().filter(|d| d.type == "ConnectX5").map(|d| `${d.mst} ${d.pci} ${d.port}`)"#);
        assert_eq!(
            cx5.to_string(),
            r#"["mt4119_pciconf1 3b:00.0 1", "mt4119_pciconf1.1 3b:00.1 2"]"#
        );
        assert!(!t.eval("mst::start().changed").as_bool().unwrap_or(true));
        t.run("mst::restart()");
        assert_eq!(t.changes().len(), 4, "{:?}", t.changes());
    }

    #[test]
    fn check_mode_predicts_the_ports_from_the_nic_list() {
        let t = TestHost::new("", true);
        assert!(t.eval("mst::start().changed").as_bool().unwrap_or(false));
        let ports =
            t.eval(r#"mst::status().map(|d| `${d.type} ${d.mst} ${d.pci} ${d.predicted}`)"#);
        assert_eq!(
            ports.to_string(),
            r#"["ConnectX4LX mt4117_pciconf0 1a:00.0 true", "ConnectX4LX mt4117_pciconf0.1 1a:00.1 true", "ConnectX5 mt4119_pciconf1 3b:00.0 true", "ConnectX5 mt4119_pciconf1.1 3b:00.1 true"]"#
        );
        assert!(
            t.commands("esx01")
                .iter()
                .all(|a| a.get(1).is_none_or(|c| c != "start"))
        );
    }
}
