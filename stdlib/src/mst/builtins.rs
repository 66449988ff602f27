//! The `mst::` builtins: start the MST service and list the ConnectX devices it sees
//! (VMware's guide section 2.2.1).

use cairn_runtime::{ActionCall, Outcome, Reconcile};
use rhai::plugin::*;
use rhai::{Array, NativeCallContext};
use serde_json::{Value, json};

use serde::{Deserialize, Serialize};

use super::{command, reads};
use crate::action::{self, Change, Compared, RhaiResult};

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
            reads::ports,
            |io, status| match status {
                Some(ports) if ports.iter().any(|p| p.device.mst != "NA") => {
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
        let started: Started = action::result_typed(&ctx, &value, "mst::start's result")?;
        action::as_map(&started)
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
        let ports = action::query_typed(
            &ctx,
            crate::mst::NAMESPACE,
            json!({}),
            "mst's ports",
            |io| match reads::ports(io)? {
                Some(ports) => Ok(ports),
                None if io.checking() => reads::predicted(io),
                None => Err(action::not_installed("mst", io.host())),
            },
        )?;
        action::as_array(&ports)
    }
}

/// What `mst::start` returns: whether it started the service.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Started {
    changed: bool,
}

#[cfg(test)]
mod engine_tests {
    use crate::test_support::{INSTALL_TOOLS, TestHost};

    #[test]
    fn status_lists_the_guides_ports_once_started() {
        let t = TestHost::esxi("").build();
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
        let t = TestHost::esxi("").check(true).build();
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

    #[test]
    fn a_replayed_start_of_another_shape_is_refused_naming_the_record() {
        use crate::test_support::{journal_of, shape_error};
        let journal = journal_of(
            "mst::start",
            serde_json::json!({}),
            serde_json::json!({ "started": true }),
        );
        let t = TestHost::esxi("").replaying(journal).build();
        let error = t.error("mst::start()");
        assert!(
            error.contains(&shape_error("mst::start", "mst::start's result")),
            "{error}"
        );
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }
}
