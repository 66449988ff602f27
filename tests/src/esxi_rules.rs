//! The rules of ESXi and vCenter the simulator follows (docs/simulator.md, "Maintenance
//! mode"), through the built binary: maintenance mode waits for a running DirectPath I/O VM,
//! the driver's VIBs need maintenance mode, `esxcli system shutdown reboot` needs it and a
//! reason, and a VM does not power on while its host is in maintenance mode.

use cairn_tests::{Lab, Run};

/// One ESXi host as sections 2.2 to 2.3 leave it, whose VM `hpc-vm01` runs on it with both
/// ConnectX-5 ports in DirectPath I/O, and the vCenter that registers it there.
const LAB: &str = r#"
[groups.esxi.vars]
vhpc_host = "vcenter"

[hosts.esx01]
address = "sim:esxi7?clock=virtual&reboot_secs=120&preset=passthrough"
groups = ["esxi"]
vars = { vm = "hpc-vm01" }

[hosts.vcenter]
address = "sim:esxi7?clock=virtual&role=vcenter&vms=hpc-vm01@esx01&vm_devices=0000:3b:00.0+0000:3b:00.1"
groups = ["management"]
"#;

/// The same host fresh from the factory: MFT absent, the inbox driver 4.19.
const FRESH: &str = r#"
[groups.esxi.vars]
vhpc_host = "vcenter"

[hosts.esx01]
address = "sim:esxi7?clock=virtual&reboot_secs=120"
groups = ["esxi"]
vars = { vm = "hpc-vm01" }

[hosts.vcenter]
address = "sim:esxi7?clock=virtual&role=vcenter&vms=hpc-vm01@esx01"
groups = ["management"]
"#;

const BUNDLE: &str =
    "/vmfs/volumes/nfs/Mellanox-nmlx5_4.21.71.101-1OEM.702.0.0.17473468_18203393.zip";
const MFT: &str = "/vmfs/volumes/nfs/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib";

fn run_book(lab_text: &str, book: &str) -> (Lab, Run) {
    let lab = Lab::new();
    lab.write("lab.toml", lab_text);
    lab.write("book.rhai", book);
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    (lab, run)
}

fn in_maintenance(lab: &Lab) -> bool {
    lab.sim_state("esx01")["tools"]["esxcli"]["maintenance"] == true
}

#[test]
fn entering_maintenance_mode_under_a_running_passthrough_vm_times_out_as_esxcli_does() {
    let (lab, run) = run_book(
        LAB,
        r#"
stage "maintenance without powering the VM off" on esxi {
    log(vhpc::view(host().vars.vm).power_state);
    esxcli::maintenance_mode_set(true);
}
"#,
    );
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(out.contains("Operation timed out"), "{out}");
    assert!(
        out.contains("hpc-vm01 (DirectPath I/O: cannot be migrated or suspended)"),
        "{out}"
    );
    assert!(
        !in_maintenance(&lab),
        "the host must not be in maintenance mode"
    );
    // The builtin bounds the wait (esxcli's default is none), and the wait took that long on
    // the host's clock.
    let sets: Vec<Vec<String>> = lab
        .sim_commands("esx01")
        .into_iter()
        .filter(|c| c.iter().any(|w| w == "maintenanceMode") && c.iter().any(|w| w == "set"))
        .collect();
    assert_eq!(
        sets.first().map(|c| c.join(" ")).as_deref(),
        Some("esxcli system maintenanceMode set -e true -t 600")
    );
    let clock = lab.sim_state("esx01")["clock_millis"].as_u64().unwrap_or(0);
    let booted = lab.sim_state("esx01")["boots"][0]["started_millis"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(
        clock >= booted.saturating_add(600_000),
        "waited {} ms",
        clock.saturating_sub(booted)
    );
}

#[test]
fn with_the_vm_powered_off_the_host_enters_and_the_vm_stays_off_until_it_leaves() {
    let (lab, run) = run_book(
        LAB,
        r#"
stage "the VM off, the host in" on esxi {
    let vm = host().vars.vm;
    vhpc::power(vm, "off");
    esxcli::maintenance_mode_set(true);
    vhpc::power(vm, "on");
}
"#,
    );
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(
        run.code, 0,
        "powering on in maintenance mode must fail: {out}"
    );
    assert!(
        out.contains("The operation is not allowed in the current state of the host"),
        "{out}"
    );
    assert!(in_maintenance(&lab));
    assert_eq!(
        lab.sim_state("vcenter")["tools"]["vhpc_toolkit"]["vms"]["hpc-vm01"]["powered_on"],
        false
    );

    let (lab, run) = run_book(
        LAB,
        r#"
stage "in and out, then the VM on" on esxi {
    let vm = host().vars.vm;
    vhpc::power(vm, "off");
    esxcli::maintenance_mode_set(true);
    esxcli::maintenance_mode_set(false);
    vhpc::power(vm, "on");
}
"#,
    );
    run.succeeds();
    assert!(!in_maintenance(&lab));
    assert_eq!(
        lab.sim_state("vcenter")["tools"]["vhpc_toolkit"]["vms"]["hpc-vm01"]["powered_on"],
        true
    );
}

#[test]
fn the_driver_bundle_needs_maintenance_mode_and_mft_does_not() {
    let book = format!(
        r#"
stage "tools, then the driver out of maintenance mode" on esxi {{
    esxcli::vib_install("{MFT}", #{{ force: true }});
    esxcli::vib_install("{BUNDLE}");
}}
"#
    );
    let (lab, run) = run_book(FRESH, &book);
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(out.contains("[MaintenanceModeError]"), "{out}");
    assert!(
        out.contains("MaintenanceMode is required to remove: [VMW_bootbank_nmlx5-core_4.19.70.1-1vmw.703.0.0.18644231, VMW_bootbank_nmlx5-rdma_4.19.70.1-1vmw.703.0.0.18644231]; install: [MEL_bootbank_nmlx5-core_4.21.71.101-1OEM.702.0.0.17473468, MEL_bootbank_nmlx5-rdma_4.21.71.101-1OEM.702.0.0.17473468]."),
        "{out}"
    );
    let vibs = lab.sim_state("esx01")["tools"]["esxcli"]["vibs"].clone();
    let version = |name: &str| {
        vibs.as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == name)
            .and_then(|v| v["version"].as_str().map(str::to_owned))
    };
    assert!(
        version("mft").is_some(),
        "MFT installs without maintenance mode"
    );
    assert_eq!(
        version("nmlx5-core").as_deref(),
        Some("4.19.70.1-1vmw.703.0.0.18644231"),
        "the refused install left the image as it was"
    );

    let book = format!(
        r#"
stage "the driver in maintenance mode" on esxi {{
    vhpc::power(host().vars.vm, "off");
    esxcli::maintenance_mode_set(true);
    esxcli::vib_install("{BUNDLE}");
}}
"#
    );
    let (lab, run) = run_book(FRESH, &book);
    run.succeeds();
    assert!(
        lab.sim_state("esx01")["tools"]["esxcli"]["vibs"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v["version"] == "4.21.71.101-1OEM.702.0.0.17473468")
    );
}

#[test]
fn esxcli_shutdown_reboot_needs_a_reason_and_maintenance_mode_and_reboot_needs_neither() {
    let (lab, run) = run_book(
        FRESH,
        r#"
stage "no reason" on esxi {
    run(["esxcli", "system", "shutdown", "reboot"]);
}
"#,
    );
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(
        out.contains("Missing required parameter -r|--reason"),
        "{out}"
    );
    assert!(lab.sim_state("esx01")["down_until_millis"].is_null());

    let (lab, run) = run_book(
        FRESH,
        r#"
stage "out of maintenance mode" on esxi {
    run(["esxcli", "system", "shutdown", "reboot", "-r", "driver update"]);
}
"#,
    );
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(
        out.contains("The operation is not allowed in the current state."),
        "{out}"
    );
    assert!(
        lab.sim_state("esx01")["down_until_millis"].is_null(),
        "refused: no reboot"
    );

    let (lab, run) = run_book(
        FRESH,
        r#"
stage "in maintenance mode" on esxi {
    vhpc::power(host().vars.vm, "off");
    esxcli::maintenance_mode_set(true);
    run(["esxcli", "system", "shutdown", "reboot", "-r", "driver update", "-d", "10"]);
}
"#,
    );
    run.succeeds();
    assert!(
        !lab.sim_state("esx01")["down_until_millis"].is_null(),
        "the host went down"
    );

    // The runtime's reboot() sends the shell's `reboot`, which ESXi runs in or out of
    // maintenance mode.
    let (lab, run) = run_book(
        FRESH,
        r#"
stage "reboot" on esxi {
    reboot();
}
"#,
    );
    run.succeeds();
    assert_eq!(lab.sim_count("esx01", &["reboot"]), 1);
    assert!(!in_maintenance(&lab));
}

#[test]
fn a_guest_whose_vm_is_powered_off_does_not_answer_until_it_is_on() {
    let lab_text = format!(
        "{LAB}\n[hosts.compute-01]\naddress = \"sim:rhel8?clock=virtual&esxi=esx01&vm=hpc-vm01\"\ngroups = [\"guests\"]\n"
    );
    let book = |power: &str| {
        format!(
            r#"
stage "power" on esxi {{
    vhpc::power(host().vars.vm, "{power}");
}}

stage "guest" on guests {{
    // Powered on, the guest answers once it has booted (docs/simulator.md).
    if "{power}" == "on" {{
        wait_reachable(300);
    }}
    run(["hostname"]);
}}
"#
        )
    };
    let lab = Lab::new();
    lab.write("lab.toml", &lab_text);
    lab.write("off.rhai", &book("off"));
    let off = lab.cairn(&["run", "off.rhai", "-i", "lab.toml"]);
    let out = format!("{}\n{}", off.stdout, off.stderr);
    assert_ne!(off.code, 0, "{out}");
    assert!(
        out.contains("its VM `hpc-vm01` is powered off in vCenter"),
        "{out}"
    );
    assert_eq!(lab.sim_count("compute-01", &["hostname"]), 0);

    lab.write("on.rhai", &book("on"));
    lab.cairn(&["run", "on.rhai", "-i", "lab.toml"]).succeeds();
    assert_eq!(lab.sim_count("compute-01", &["hostname"]), 1);
}
