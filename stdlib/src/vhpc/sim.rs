//! The simulated vCenter behind `vhpc_toolkit` on a management host (`sim:esxi7?role=vcenter`;
//! on any other host `vhpc_toolkit` is not installed): VMs with
//! their passthrough devices, latency sensitivity and reservations.
//!
//! `vms=a,b,c` lists the VMs that exist; without it any VM named exists (powered off, nothing
//! attached). `vm_devices=0000:3b:00.0+0000:3b:00.1` attaches those devices to every listed VM
//! from the start (a lab whose ESXi half is done). As the real tool does, adding a passthrough device reserves the VM's memory, and a
//! device already attached is skipped with an error line, exit 0.

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};
use serde::{Deserialize, Serialize};

use crate::machine::esxi::{error, flag_value, has, ok};

/// The `vhpc_toolkit` tool model.
pub(crate) struct VhpcToolkit;

/// A VM as vCenter keeps it (devices lower case, `0000:3b:00.0`). Its guest reads
/// `booted_devices`: what the VM had at its last power-on, since a device added to a VM's
/// configuration reaches the guest only when the VM is powered on again.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Vm {
    pub(crate) devices: Vec<String>,
    #[serde(default)]
    pub(crate) booted_devices: Vec<String>,
    #[serde(default)]
    powered_on: bool,
    /// The power-on tasks that succeeded: its guest boots once per new one
    /// (`machine::host_vms::guest_boots`).
    #[serde(default)]
    power_ons: u64,
    /// The ESXi host it is registered on (`vms=NAME@HOST`), which reads it
    /// (`machine::host_vms::VcenterVms`).
    #[serde(default)]
    pub(crate) host: Option<String>,
    latency: String,
    cpu_reservation: bool,
    memory_reservation: bool,
}

/// The `vhpc_toolkit` state slot of the management host: the simulated vCenter's VMs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct VcenterState {
    pub(crate) vms: BTreeMap<String, Vm>,
}

fn new_vm() -> Vm {
    Vm {
        latency: "normal".into(),
        ..Vm::default()
    }
}

impl SimTool for VhpcToolkit {
    fn commands(&self) -> &[&'static str] {
        &["vhpc_toolkit"]
    }

    fn options(&self) -> &[&'static str] {
        &["vms", "role", "vm_devices", VM_POWER_SECS]
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        if key == VM_POWER_SECS {
            return crate::machine::durations::check(value);
        }
        if key != "vms" || value.trim().is_empty() {
            return Ok(());
        }
        for entry in value.split(',').map(str::trim) {
            let (vm, esxi) = entry.split_once('@').unwrap_or((entry, "x"));
            if vm.trim().is_empty() || esxi.trim().is_empty() {
                return Err(format!(
                    "`{entry}`: a VM name, or NAME@HOST for a VM registered on an ESXi host (vms=compute-01@esx01,compute-02@esx02)"
                ));
            }
        }
        Ok(())
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let mut state = VcenterState::default();
        let devices: Vec<String> = host
            .option("vm_devices")
            .unwrap_or("")
            .split('+')
            .map(|d| d.trim().to_ascii_lowercase())
            .filter(|d| !d.is_empty())
            .collect();
        for entry in host.option("vms").unwrap_or("").split(',').map(str::trim) {
            let (vm, esxi) = match entry.split_once('@') {
                Some((vm, esxi)) => (vm.trim(), Some(esxi.trim().to_owned())),
                None => (entry, None),
            };
            if !vm.is_empty() {
                // A listed VM runs, as the guest that stands for it does.
                let mut new = new_vm();
                new.host = esxi;
                new.memory_reservation = !devices.is_empty();
                new.devices.clone_from(&devices);
                new.booted_devices.clone_from(&devices);
                new.powered_on = true;
                state.vms.insert(vm.to_owned(), new);
            }
        }
        let _ = host.save_state(&state);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        if host.option("role") != Some("vcenter") {
            return crate::machine::esxi::not_found("vhpc_toolkit");
        }
        let mut state: VcenterState = host.load_state().unwrap_or_default();
        let Some(name) = flag_value(argv, &["--vm"]) else {
            return error(
                2,
                "vhpc_toolkit: error: one of the arguments --vm --file is required\n".into(),
            );
        };
        let fixed = host.option("vms").is_some();
        let esxi_in_maintenance = state
            .vms
            .get(name)
            .and_then(|vm| vm.host.as_deref())
            .is_some_and(|esxi| crate::machine::host_vms::in_maintenance(host, esxi));
        if fixed && !state.vms.contains_key(name) {
            return error(1, format!("ERROR - Couldn't find VM {name}\n"));
        }
        let vm = state.vms.entry(name.to_owned()).or_insert_with(new_vm);
        let output = match argv.get(1).map(String::as_str) {
            Some("view") => ok(view(name, vm)),
            Some("passthru") => passthru(vm, name, argv),
            Some("power") => {
                let before = vm.clone();
                let output = power(vm, name, argv, host.now_millis(), esxi_in_maintenance);
                // The task takes its time on vCenter's clock; cut short by the command's
                // timeout (the transport then reports the timeout), it did not happen.
                if vm.powered_on != before.powered_on
                    && !crate::machine::durations::take(host, VM_POWER_SECS)
                {
                    *vm = before;
                }
                output
            }
            Some("latency") => match flag_value(argv, &["--level"]) {
                Some(level @ ("high" | "normal")) => {
                    vm.latency = level.to_owned();
                    ok(format!(
                        "INFO - Configure latency sensitivity to {level} for VM {name} completed\n"
                    ))
                }
                Some(other) => error(
                    2,
                    format!(
                        "vhpc_toolkit latency: error: argument --level: invalid choice: '{other}' (choose from 'high', 'normal')\n"
                    ),
                ),
                None if has(argv, &["--check"]) => ok(format!(
                    "Latency sensitivity of VM {name}: {}\n",
                    vm.latency
                )),
                None => error(
                    2,
                    "vhpc_toolkit latency: error: --level or --check is required\n".into(),
                ),
            },
            Some("cpumem") => {
                let yes = |v: &str| matches!(v, "y" | "yes" | "t" | "true" | "1");
                if let Some(cpu) = flag_value(argv, &["--cpu_reservation"]) {
                    vm.cpu_reservation = yes(cpu);
                }
                if let Some(memory) = flag_value(argv, &["--memory_reservation"]) {
                    vm.memory_reservation = yes(memory);
                }
                ok(format!(
                    "INFO - Reconfigure CPU/memory for VM {name} completed\n"
                ))
            }
            Some(other) => error(
                2,
                format!("vhpc_toolkit: error: invalid choice: '{other}'\n"),
            ),
            None => error(2, "usage: vhpc_toolkit [-h] COMMAND ...\n".into()),
        };
        let _ = host.save_state(&state);
        output
    }
}

/// Seconds a power task that changes a VM's state takes on vCenter's clock (docs/simulator.md,
/// "Operation durations").
const VM_POWER_SECS: &str = "vm_power_secs";

/// `power --on|--off`, logged as vhpc_toolkit does (vmware/vhpc-toolkit `operations.py`
/// `_get_poweron_tasks`/`_get_poweroff_tasks`: "VM NAME is already in power on state", and
/// `wait.py`: "Task Power on (number TASK) is successful"). Powering on boots the VM with the
/// devices its configuration has now. A VM whose host is in maintenance mode does not power on
/// ("You cannot deploy or power on a virtual machine on hosts in maintenance mode", vSphere CLI
/// Concepts and Examples 6.7): the task fails with vCenter's InvalidHostState text, which
/// vhpc_toolkit logs with exit 0 (`wait.py`: "has an error - MSG").
fn power(
    vm: &mut Vm,
    name: &str,
    argv: &[String],
    now: u64,
    host_in_maintenance: bool,
) -> ExecOutput {
    let on = match (has(argv, &["--on"]), has(argv, &["--off"])) {
        (true, false) => true,
        (false, true) => false,
        _ => {
            return error(
                2,
                "vhpc_toolkit power: error: one of the arguments --on --off is required\n".into(),
            );
        }
    };
    let (word, task) = if on {
        ("on", "Power on")
    } else {
        ("off", "Power off")
    };
    if vm.powered_on == on {
        return ok(format!(
            "INFO - VM {name} is already in power {word} state\n"
        ));
    }
    let task_id = format!("'vim.Task:task-{}'", now % 100_000);
    if on && host_in_maintenance {
        return ok(format!(
            "ERROR - Task {task} (number {task_id}) has an error - The operation is not allowed in the current state of the host.\n"
        ));
    }
    vm.powered_on = on;
    if on {
        vm.booted_devices.clone_from(&vm.devices);
        vm.power_ons += 1;
    }
    ok(format!(
        "INFO - Task {task} (number {task_id}) is successful\n"
    ))
}

fn view(name: &str, vm: &Vm) -> String {
    let devices = if vm.devices.is_empty() {
        "None".to_owned()
    } else {
        vm.devices.join(", ")
    };
    format!(
        "VM: {name}\n    Power state: {}\n    Passthrough devices: {devices}\n    Latency sensitivity: {}\n    CPU reservation: {}\n    Memory reservation: {}\n",
        if vm.powered_on {
            "poweredOn"
        } else {
            "poweredOff"
        },
        vm.latency,
        if vm.cpu_reservation { "full" } else { "none" },
        if vm.memory_reservation {
            "full"
        } else {
            "none"
        },
    )
}

fn passthru(vm: &mut Vm, name: &str, argv: &[String]) -> ExecOutput {
    let devices: Vec<String> = argv
        .iter()
        .skip_while(|a| *a != "--device")
        .skip(1)
        .take_while(|a| !a.starts_with("--"))
        .map(|d| d.to_ascii_lowercase())
        .collect();
    if devices.is_empty() {
        return error(
            2,
            "vhpc_toolkit passthru: error: --device is required\n".into(),
        );
    }
    let mut out = String::new();
    if has(argv, &["--add"]) {
        let mut added = false;
        for device in devices {
            if vm.devices.contains(&device) {
                out.push_str(&format!(
                    "ERROR - Device {device} is already configured. Skip.\n"
                ));
            } else {
                vm.devices.push(device);
                added = true;
            }
        }
        if added {
            if !vm.memory_reservation {
                out.push_str("WARNING - Adding a PCI device or shared PCI device in passthrough mode needs to reserve memory. Reserving memory.\n");
                vm.memory_reservation = true;
            }
            out.push_str(&format!(
                "INFO - Add Passthrough device(s) for VM {name} completed\n"
            ));
        }
    } else if has(argv, &["--remove"]) {
        for device in devices {
            if let Some(i) = vm.devices.iter().position(|d| *d == device) {
                vm.devices.remove(i);
                out.push_str(&format!(
                    "INFO - Device {device} to be removed on VM {name}\n"
                ));
            } else {
                out.push_str(&format!(
                    "ERROR - Couldn't find device {device} on VM {name}. Skip.\n"
                ));
            }
        }
    } else {
        return error(
            2,
            "vhpc_toolkit passthru: error: --add, --remove or --query is required\n".into(),
        );
    }
    ok(out)
}

#[cfg(test)]
mod tests {
    /// The passthrough contract: the devices vCenter attaches are what a guest reads.
    #[test]
    fn the_attached_devices_read_back_as_the_guests_view() {
        use crate::machine::passthrough::{VCENTER_SLOT, VmDevices};

        assert_eq!(VhpcToolkit.name(), VCENTER_SLOT);
        let mut vm = new_vm();
        vm.devices = vec!["0000:3b:00.0".into(), "0000:3b:00.1".into()];
        let mut state = VcenterState::default();
        state.vms.insert("hpc-vm01".into(), vm.clone());
        let saved = serde_json::to_value(&state).unwrap_or_default();
        let view: VmDevices = serde_json::from_value(saved).unwrap_or_default();
        assert_eq!(
            view.vms.get("hpc-vm01").map(|v| v.devices.clone()),
            Some(vm.devices)
        );
    }

    use super::*;

    /// The host contract: what vCenter keeps of a VM is what its ESXi host reads of it.
    #[test]
    fn a_vms_host_power_and_devices_read_back_as_the_hosts_view() {
        use crate::machine::host_vms::VcenterVms;

        let mut vm = new_vm();
        vm.host = Some("esx01".into());
        vm.powered_on = true;
        vm.booted_devices = vec!["0000:3b:00.0".into()];
        let mut state = VcenterState::default();
        state.vms.insert("hpc-vm01".into(), vm);
        let saved = serde_json::to_value(&state).unwrap_or_default();
        let view: VcenterVms = serde_json::from_value(saved).unwrap_or_default();
        let seen = view.vms.get("hpc-vm01").cloned().unwrap_or_default();
        assert_eq!(seen.host.as_deref(), Some("esx01"));
        assert!(seen.powered_on);
        assert_eq!(seen.booted_devices, ["0000:3b:00.0"]);
    }

    /// A power task that changes the VM's state takes `vm_power_secs` on vCenter's clock; one
    /// that changes nothing takes none, and a bad value stops vCenter opening.
    #[test]
    fn a_power_change_takes_its_time_on_vcenters_clock_and_a_no_op_none() {
        use std::collections::BTreeMap;
        use std::sync::Arc;

        use cairn_runtime::sim::SimTransport;
        use cairn_runtime::{ExecRequest, Transport};

        let open = |dir: &std::path::Path, secs: &str| {
            let options = BTreeMap::from(
                [
                    ("clock", "virtual"),
                    ("role", "vcenter"),
                    ("vms", "vm01"),
                    ("vm_power_secs", secs),
                ]
                .map(|(k, v)| (k.to_owned(), v.to_owned())),
            );
            let model = Arc::new(crate::models::esxi7::esxi7());
            SimTransport::new("vcenter", dir, model, options).map_err(|e| e.to_string())
        };
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut vcenter = open(dir.path(), "10").unwrap_or_else(|e| panic!("{e}"));
        let mut took = |flag: &str| {
            let before = vcenter.clock().now_millis();
            let argv = ["vhpc_toolkit", "power", "--vm", "vm01", flag];
            let out = vcenter
                .exec(&ExecRequest::new(argv))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(out.code, 0, "{}", out.stderr);
            vcenter.clock().now_millis() - before
        };
        assert_eq!(took("--on"), 0, "already on");
        assert_eq!(took("--off"), 10_000);
        assert_eq!(took("--on"), 10_000);
        let bad = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let Err(message) = open(bad.path(), "soon") else {
            panic!("vm_power_secs=soon was accepted");
        };
        assert!(message.contains("vm_power_secs"), "{message}");
    }

    #[test]
    fn a_vm_list_with_an_empty_name_or_host_is_refused() {
        for good in ["a,b", "compute-01@esx01,compute-02@esx02", "a@esx01,b"] {
            assert!(VhpcToolkit.check_option("vms", good).is_ok(), "{good}");
        }
        for bad in ["a,,b", "@esx01", "compute-01@", "a, @b"] {
            assert!(VhpcToolkit.check_option("vms", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_view_reads_back() {
        let mut vm = new_vm();
        let argv: Vec<String> = [
            "vhpc_toolkit",
            "passthru",
            "--vm",
            "v",
            "--add",
            "--device",
            "0000:3B:00.0",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        assert_eq!(passthru(&mut vm, "v", &argv).code, 0);
        let again = passthru(&mut vm, "v", &argv);
        assert!(again.stdout.contains("already configured"));
        let parsed = super::super::view::parse(&view("v", &vm)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.passthrough_devices, ["0000:3b:00.0"]);
        assert!(parsed.memory_reservation && !parsed.cpu_reservation);
        assert_eq!(parsed.latency_sensitivity.as_deref(), Some("normal"));
    }
}
