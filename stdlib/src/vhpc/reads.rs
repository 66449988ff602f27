//! What the `vhpc::` builtins read from vCenter, as typed values: `view` journals a
//! [`VmView`] (`action::query_typed`) and each change reads one to decide and returns a
//! [`VmChange`], so a replayed record of another shape is refused naming it.

use cairn_runtime::{ActionError, HostIo};
use serde::{Deserialize, Serialize};

use super::command;
use super::remote::Management;
use super::view::{self, VmView};

/// What a `vhpc::` change returns: whether it changed the VM, and what it is about (`vm` with
/// `device`, `from`/`to`, or `cpu`/`memory`, as each builtin's help says). An outcome the
/// operator assumed done (`--assume done`) has `changed` alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct VmChange {
    pub(super) changed: bool,
    #[serde(flatten)]
    pub(super) about: serde_json::Map<String, serde_json::Value>,
}

/// The key of a VM's predicted view in check mode.
pub(super) fn predicted_key(vm: &str) -> String {
    format!("vhpc::view {vm}")
}

/// The VM as vCenter shows it, or, in check mode, as the changes predicted before left it.
pub(super) fn seen(
    io: &HostIo<'_>,
    management: &Management,
    vm: &str,
) -> Result<VmView, ActionError> {
    let predicted = io
        .predicted(&predicted_key(vm))
        .and_then(|view| serde_json::from_value(view).ok());
    match predicted {
        Some(view) => Ok(view),
        None => view_of(management, vm),
    }
}

/// `vhpc_toolkit view --vm VM` on the management host.
pub(super) fn view_of(management: &Management, vm: &str) -> Result<VmView, ActionError> {
    let argv = command::view(&management.program, vm);
    let output = management.run(&argv)?;
    view::parse(&output.stdout).map_err(|e| {
        ActionError::Failed(format!("`{}` output does not parse: {e}", argv.join(" ")))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    #[test]
    fn a_replayed_view_or_change_of_another_shape_is_refused_naming_the_record() {
        let view = json!({ "vm": "hpc-vm01", "power": "poweredOn", "passthrough_devices": [], "latency_sensitivity": null, "cpu_reservation": false, "memory_reservation": false });
        let power =
            json!({ "vm": "hpc-vm01", "from": "poweredOn", "to": "poweredOff", "changed": "yes" });
        for (call, builtin, args, result, expected, names) in [
            (
                r#"vhpc::view("hpc-vm01")"#,
                "vhpc::view",
                json!({ "vm": "hpc-vm01" }),
                view,
                "vCenter's view of a VM",
                "`power`",
            ),
            (
                r#"vhpc::power("hpc-vm01", "off")"#,
                "vhpc::power",
                json!({ "vm": "hpc-vm01", "state": "off" }),
                power,
                "a vhpc change's result",
                "invalid type",
            ),
        ] {
            let t = TestHost::esxi("")
                .replaying(journal_of(builtin, args, result))
                .build();
            let error = t.error(call);
            assert!(error.contains(&shape_error(builtin, expected)), "{error}");
            assert!(error.contains(names), "{error}");
            assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
        }
    }
}
