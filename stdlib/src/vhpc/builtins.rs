//! The `vhpc::` builtins: a VM's passthrough devices, latency sensitivity and reservations in
//! vCenter, through `vhpc_toolkit` on the management host named by the inventory var
//! `vhpc_host` (VMware's guide section 2.3.1, the Dell/VMware HPC study).

use cairn_runtime::{HostContext, Outcome, Reconcile};
use rhai::plugin::*;

/// `vhpc::reserve(vm, #{...})`'s options.
pub(crate) const RESERVE_OPTIONS: cairn_runtime::BuiltinOptions = cairn_runtime::BuiltinOptions {
    builtin: "vhpc::reserve",
    arg: 1,
    keys: &[
        crate::action::key("cpu", cairn_runtime::OptionType::Bool),
        crate::action::key("memory", cairn_runtime::OptionType::Bool),
    ],
};
use rhai::{Map, NativeCallContext};
use serde_json::{Value, json};

use super::command;
use super::reads::{self, VmChange};
use super::remote::Management;
use super::view::VmView;
use crate::action::{self, Change, Compared, RhaiResult};

/// The `vhpc::` module.
#[export_module]
pub mod vhpc_builtins {
    use super::*;

    /// A VM as vCenter has it (`vhpc_toolkit view --vm VM`): `#{vm, power_state,
    /// passthrough_devices, latency_sensitivity, cpu_reservation, memory_reservation}`.
    ///
    /// ```rhai
    /// let vm = vhpc::view(host().vars.vm);
    /// log(`${vm.vm}: ${vm.passthrough_devices}`);
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn view(ctx: NativeCallContext, vm: String) -> RhaiResult<Map> {
        let host = HostContext::current(&ctx)?;
        let view = action::query_typed(
            &ctx,
            crate::vhpc::NAMESPACE,
            json!({ "vm": vm }),
            "vCenter's view of a VM",
            |io| reads::seen(io, &Management::of(host)?, &vm),
        )?;
        action::as_map(&view)
    }

    /// Assigns a PCI device (a ConnectX port: `0000:3B:00.0` or `3b:00.0`) to a VM in
    /// DirectPath I/O (`vhpc_toolkit passthru --add --vm VM --device PCI`), unless it is
    /// already. vhpc_toolkit reserves the VM's memory with it. Returns `#{vm, device,
    /// changed}`.
    ///
    /// ```rhai
    /// vhpc::passthru_add(host().vars.vm, "0000:3B:00.0");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn passthru_add(ctx: NativeCallContext, vm: String, pci: String) -> RhaiResult<Map> {
        passthru(&ctx, &vm, &pci, true)
    }

    /// Removes a passthrough PCI device from a VM, if it has it. Returns `#{vm, device,
    /// changed}`.
    ///
    /// ```rhai
    /// vhpc::passthru_remove("hpc-vm01", "0000:3b:00.1");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn passthru_remove(ctx: NativeCallContext, vm: String, pci: String) -> RhaiResult<Map> {
        passthru(&ctx, &vm, &pci, false)
    }

    /// Sets a VM's latency sensitivity, `"high"` or `"normal"` (`vhpc_toolkit latency --vm VM
    /// --level LEVEL`), unless it is already. Returns `#{vm, from, to, changed}`.
    ///
    /// ```rhai
    /// vhpc::latency(host().vars.vm, "high");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn latency(ctx: NativeCallContext, vm: String, level: String) -> RhaiResult<Map> {
        let level = level.to_ascii_lowercase();
        if level != "high" && level != "normal" {
            return Err(action::bad_argument(
                &ctx,
                format!("latency level `{level}` is not `high` or `normal`"),
            ));
        }
        let leaves = level.clone();
        change(
            &ctx,
            json!({ "vm": vm, "level": level }),
            &vm,
            move |now, program| {
                let from = now.latency_sensitivity.clone();
                let value = json!({ "vm": now.vm, "from": from, "to": level });
                if from.as_deref() == Some(level.as_str()) {
                    return (value, None);
                }
                (value, Some(command::latency(program, &now.vm, &level)))
            },
            move |view| view.latency_sensitivity = Some(leaves.clone()),
        )
    }

    /// Powers a VM `"on"` or `"off"` in vCenter (`vhpc_toolkit power --vm VM --on|--off`),
    /// unless it already is. A passthrough device attached to a VM reaches its guest at the
    /// VM's next power-on, as on a real host. Returns `#{vm, from, to, changed}`.
    ///
    /// ```rhai
    /// vhpc::power(host().vars.vm, "off");
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn power(ctx: NativeCallContext, vm: String, state: String) -> RhaiResult<Map> {
        let state = state.to_ascii_lowercase();
        let on = match state.as_str() {
            "on" => true,
            "off" => false,
            other => {
                return Err(action::bad_argument(
                    &ctx,
                    format!(
                        "power state `{other}` is not `on` or `off` (vhpc_toolkit power --on|--off)"
                    ),
                ));
            }
        };
        change(
            &ctx,
            json!({ "vm": vm, "state": state }),
            &vm,
            move |now, program| {
                let wanted = if on { "poweredOn" } else { "poweredOff" };
                let from = now.power_state.clone();
                let value = json!({ "vm": now.vm, "from": from, "to": wanted });
                if from.as_deref() == Some(wanted) {
                    return (value, None);
                }
                (value, Some(command::power(program, &now.vm, on)))
            },
            move |view| {
                let state = if on { "poweredOn" } else { "poweredOff" };
                view.power_state = Some(state.to_owned());
            },
        )
    }

    /// Reserves (or releases) a VM's CPU and memory, `#{cpu: true, memory: true}`
    /// (`vhpc_toolkit cpumem --cpu_reservation yes --memory_reservation yes`), changing only
    /// what differs; a key left out is left as it is. Returns `#{vm, changed, cpu, memory}`.
    ///
    /// ```rhai
    /// vhpc::reserve(host().vars.vm, #{ cpu: true, memory: true });
    /// ```
    #[rhai_fn(volatile, return_raw)]
    pub fn reserve(ctx: NativeCallContext, vm: String, options: Map) -> RhaiResult<Map> {
        crate::action::check_options(&ctx, &super::RESERVE_OPTIONS, &options)?;
        let flag = |key: &str| options.get(key).and_then(|v| v.as_bool().ok());
        let (cpu, memory) = (flag("cpu"), flag("memory"));
        if cpu.is_none() && memory.is_none() {
            return Err(action::bad_argument(
                &ctx,
                "vhpc::reserve needs #{cpu: true|false} and/or #{memory: true|false}".into(),
            ));
        }
        change(
            &ctx,
            json!({ "vm": vm, "cpu": cpu, "memory": memory }),
            &vm,
            move |now, program| {
                let cpu = cpu.filter(|c| *c != now.cpu_reservation);
                let memory = memory.filter(|m| *m != now.memory_reservation);
                let value = json!({ "vm": now.vm, "cpu": cpu.unwrap_or(now.cpu_reservation), "memory": memory.unwrap_or(now.memory_reservation) });
                if cpu.is_none() && memory.is_none() {
                    return (value, None);
                }
                (value, Some(command::cpumem(program, &now.vm, cpu, memory)))
            },
            move |view| {
                view.cpu_reservation = cpu.unwrap_or(view.cpu_reservation);
                view.memory_reservation = memory.unwrap_or(view.memory_reservation);
            },
        )
    }
}

fn passthru(ctx: &NativeCallContext, vm: &str, pci: &str, add: bool) -> RhaiResult<Map> {
    let device = crate::action::full_pci(pci);
    let leaves = device.clone();
    change(
        ctx,
        json!({ "vm": vm, "device": device }),
        vm,
        move |now, program| {
            let has = now.passthrough_devices.contains(&device);
            let value = json!({ "vm": now.vm, "device": device });
            if has == add {
                return (value, None);
            }
            (
                value,
                Some(command::passthru(program, &now.vm, &device, add)),
            )
        },
        move |view| {
            view.passthrough_devices.retain(|d| *d != leaves);
            if add {
                view.passthrough_devices.push(leaves.clone());
                // vhpc_toolkit reserves the VM's memory with a passthrough device.
                view.memory_reservation = true;
            }
        },
    )
}

/// A change through vhpc_toolkit, through the change helper: `plan` looks at the VM and says
/// what to run, if anything; `leaves` is what running it makes of the VM, which check mode
/// keeps as its prediction (vCenter was not changed) for the calls after it: a power-on after
/// a predicted power-off is a change. Reconciled by looking again: nothing left to run means
/// it happened.
fn change(
    ctx: &NativeCallContext,
    args: Value,
    vm: &str,
    plan: impl Fn(&VmView, &str) -> (Value, Option<Vec<String>>) + Clone + 'static,
    leaves: impl FnOnce(&mut VmView),
) -> RhaiResult<Map> {
    let host = HostContext::current(ctx)?;
    let (probe_host, probe_plan, probe_vm) = (host.clone(), plan.clone(), vm.to_owned());
    let change = Change {
        namespace: crate::vhpc::NAMESPACE,
        args,
        assumed: json!({ "changed": true }),
        reconcile: Reconcile::Marked(Box::new(move |_, _| {
            let management = Management::of(probe_host)?;
            let now = reads::view_of(&management, &probe_vm)?;
            let (mut value, todo) = probe_plan(&now, &management.program);
            value["changed"] = json!(true);
            Ok(todo.is_none().then_some(Outcome {
                changed: true,
                reboot_required: false,
                value,
            }))
        })),
    };
    let value = change.run(
        ctx,
        |io| {
            let management = Management::of(host.clone())?;
            let now = reads::seen(io, &management, vm)?;
            Ok((management, now))
        },
        |io, (management, now)| {
            let (mut value, todo) = plan(&now, &management.program);
            value["changed"] = json!(todo.is_some());
            if todo.is_some() && io.checking() {
                let mut predicted = now.clone();
                leaves(&mut predicted);
                io.predict(&reads::predicted_key(vm), action::json(&predicted));
            }
            Ok(match todo {
                None => Compared::Same(value),
                Some(argv) => {
                    let before = value.clone();
                    Compared::differs(value, false, before, (management, argv))
                }
            })
        },
        |_, (management, argv), planned| {
            management.run(&argv)?;
            Ok(planned)
        },
    )?;
    let change: VmChange = action::result_typed(ctx, &value, "a vhpc change's result")?;
    action::as_map(&change)
}

#[cfg(test)]
mod tests {
    use crate::test_support::TestHost;

    #[test]
    fn passthrough_latency_and_reservations_through_the_management_host() {
        let t = TestHost::esxi("").build();
        assert!(
            t.eval(r#"vhpc::passthru_add("hpc-vm01", "0000:3B:00.0").changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            !t.eval(r#"vhpc::passthru_add("hpc-vm01", "3b:00.0").changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        let view = t.eval(r#"let v = vhpc::view("hpc-vm01"); [v.passthrough_devices, v.memory_reservation, v.cpu_reservation]"#);
        assert_eq!(view.to_string(), r#"[["0000:3b:00.0"], true, false]"#);
        assert!(
            t.eval(r#"vhpc::latency("hpc-vm01", "high").changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            !t.eval(r#"vhpc::latency("hpc-vm01", "HIGH").changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert!(
            t.eval(r#"vhpc::reserve("hpc-vm01", #{ cpu: true, memory: true }).changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            !t.eval(r#"vhpc::reserve("hpc-vm01", #{ cpu: true, memory: true }).changed"#)
                .as_bool()
                .unwrap_or(true)
        );
        assert!(
            t.eval(r#"vhpc::passthru_remove("hpc-vm01", "0000:3b:00.0").changed"#)
                .as_bool()
                .unwrap_or(false)
        );
        assert!(
            t.error(r#"vhpc::latency("hpc-vm01", "extreme")"#)
                .contains("not `high` or `normal`")
        );
        let cpumem: Vec<Vec<String>> = t
            .commands("vcenter")
            .into_iter()
            .filter(|a| a.get(1).is_some_and(|c| c == "cpumem"))
            .collect();
        assert_eq!(
            cpumem,
            [[
                "vhpc_toolkit",
                "cpumem",
                "--vm",
                "hpc-vm01",
                "--cpu_reservation",
                "yes"
            ]
            .map(String::from)],
            "memory was reserved with the device"
        );
        assert!(
            t.commands("esx01").is_empty(),
            "vhpc_toolkit runs on the management host only"
        );
    }

    #[test]
    fn check_mode_only_looks() {
        let t = TestHost::esxi("").check(true).build();
        t.run(
            r#"vhpc::passthru_add("hpc-vm01", "0000:3B:00.0"); vhpc::latency("hpc-vm01", "high");"#,
        );
        assert_eq!(t.changes().len(), 2);
        assert!(
            t.commands("vcenter")
                .iter()
                .all(|a| a.get(1).is_some_and(|c| c == "view"))
        );
    }

    #[test]
    fn check_mode_predicts_a_power_on_after_a_predicted_power_off_as_a_change() {
        let t = TestHost::esxi("").check(true).build();
        // hpc-vm01 is off: powering it on, then off again, then on, is three predicted changes,
        // each seen by the next, and vCenter is only looked at.
        let changed = t.eval(
            r#"[vhpc::power("hpc-vm01", "on").changed, vhpc::view("hpc-vm01").power_state,
                vhpc::power("hpc-vm01", "on").changed, vhpc::power("hpc-vm01", "off").changed,
                vhpc::power("hpc-vm01", "on").changed]"#,
        );
        assert_eq!(
            changed.to_string(),
            r#"[true, "poweredOn", false, true, true]"#
        );
        assert!(
            t.commands("vcenter")
                .iter()
                .all(|a| a.get(1).is_some_and(|c| c == "view"))
        );
    }

    #[test]
    fn power_changes_only_what_differs_and_refuses_an_unknown_state() {
        let t = TestHost::esxi("").build();
        let first = t.eval(r#"let p = vhpc::power("hpc-vm01", "on"); [p.from, p.to, p.changed]"#);
        assert_eq!(first.to_string(), r#"["poweredOff", "poweredOn", true]"#);
        let again = t.eval(r#"vhpc::power("hpc-vm01", "ON").changed"#);
        assert_eq!(again.to_string(), "false");
        let state = t.eval(r#"vhpc::view("hpc-vm01").power_state"#);
        assert_eq!(state.to_string(), "poweredOn");
        let powers = |t: &TestHost| {
            t.commands("vcenter")
                .iter()
                .filter(|a| a.get(1).is_some_and(|c| c == "power"))
                .count()
        };
        assert_eq!(powers(&t), 1, "the second call only looked");
        let t = t.again(true);
        t.run(r#"vhpc::power("hpc-vm01", "off");"#);
        assert_eq!(powers(&t), 1, "check mode only looks");
        let t = t.again(false);
        let wrong = t.error(r#"vhpc::power("hpc-vm01", "of");"#);
        assert!(wrong.contains("`of` is not `on` or `off`"), "{wrong}");
    }
}
