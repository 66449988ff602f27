//! A VM's power-on takes time in vCenter and its guest boots before it answers
//! (docs/simulator.md, "Operation durations" and the simulated vCenter), through the built
//! binary: right after the power-on the guest is unreachable, `wait_reachable` waits for it on
//! its clock, journaled and resumable, and a guest that never comes back fails named.

use cairn_tests::{Lab, Run, records};

use crate::crash::crashed_at;

/// One ESXi host with its VM `hpc-vm01` running, a vCenter whose power tasks take 30 s, and the
/// VM's guest, which boots in 120 s (`GUEST_EXTRA` adds options to it).
fn lab_text(guest_extra: &str) -> String {
    format!(
        r#"
[groups.esxi.vars]
vhpc_host = "vcenter"

[hosts.esx01]
address = "sim:esxi7?clock=virtual&reboot_secs=120&preset=passthrough"
groups = ["esxi"]
vars = {{ vm = "hpc-vm01" }}

[hosts.vcenter]
address = "sim:esxi7?clock=virtual&role=vcenter&vm_power_secs=30&vms=hpc-vm01@esx01&vm_devices=0000:3b:00.0+0000:3b:00.1"
groups = ["management"]

[hosts.hpc-vm01]
address = "sim:rhel8?clock=virtual&reboot_secs=120&esxi=esx01{guest_extra}"
groups = ["guests"]
"#
    )
}

/// Powers the VM off and on from its ESXi host's instance, then runs `guest_stage` on the guest.
fn book(guest_stage: &str) -> String {
    format!(
        r#"
stage "power cycle" on esxi {{
    vhpc::power(host().vars.vm, "off");
    vhpc::power(host().vars.vm, "on");
}}

stage "guest" on guests {{
{guest_stage}
    log(run(["cat", "/proc/sys/kernel/random/boot_id"]).stdout);
}}
"#
    )
}

fn run_lab(guest_extra: &str, guest_stage: &str) -> (Lab, Run) {
    let lab = Lab::new();
    lab.write("lab.toml", &lab_text(guest_extra));
    lab.write("book.rhai", &book(guest_stage));
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    (lab, run)
}

fn clock_secs(lab: &Lab, host: &str) -> u64 {
    let state = lab.sim_state(host);
    let now = state["clock_millis"].as_u64().unwrap_or(0);
    let start = state["boots"][0]["started_millis"].as_u64().unwrap_or(0);
    now.saturating_sub(start) / 1000
}

fn boots(lab: &Lab, host: &str) -> usize {
    lab.sim_state(host)["boots"].as_array().map_or(0, Vec::len)
}

#[test]
fn right_after_its_power_on_the_guest_is_unreachable_while_it_boots() {
    let (lab, run) = run_lab("", "");
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(out.contains("hpc-vm01"), "{out}");
    assert!(out.contains("booting after its power-on"), "{out}");
    // The power tasks took their time on vCenter's clock: off and on, 30 s each.
    assert!(
        clock_secs(&lab, "vcenter") >= 60,
        "{}",
        clock_secs(&lab, "vcenter")
    );
}

#[test]
fn wait_reachable_waits_for_the_guest_to_boot_and_the_run_passes() {
    let (lab, run) = run_lab("", "    wait_reachable(600);");
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.code, 0, "{out}");
    // The guest booted once more (a new boot id), after its 120 s boot on its clock, and was
    // polled while it did.
    assert_eq!(boots(&lab, "hpc-vm01"), 2, "{out}");
    assert!(
        clock_secs(&lab, "hpc-vm01") >= 120,
        "{}",
        clock_secs(&lab, "hpc-vm01")
    );
    let waits: Vec<u64> = records(&lab.journal("hpc-vm01"), "outcome")
        .into_iter()
        .filter_map(|r| r["data"]["result"]["waited_ms"].as_u64())
        .collect();
    assert_eq!(waits.len(), 1, "{:#?}", lab.journal("hpc-vm01"));
    assert!(waits[0] >= 120_000, "{waits:?}");
    // A second run: the guest answers at once, nothing boots again.
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
}

#[test]
fn a_guest_that_never_comes_back_fails_named_after_the_timeout() {
    let (_lab, run) = run_lab("&fault_reboot_hang", "    wait_reachable(300);");
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(
        out.contains("`hpc-vm01` did not answer within 300 s (`wait_reachable`)"),
        "{out}"
    );
    // The ESXi host's part passed: only the guest fails.
    assert!(!out.contains("esx01 failed"), "{out}");
}

#[test]
fn a_bad_timeout_is_refused_with_the_builtin_named() {
    let (_lab, run) = run_lab("", "    wait_reachable(0);");
    let out = format!("{}\n{}", run.stdout, run.stderr);
    assert_ne!(run.code, 0, "{out}");
    assert!(
        out.contains("`wait_reachable` needs a timeout of at least 1 s, not 0"),
        "{out}"
    );
}

#[test]
fn a_run_stopped_anywhere_in_the_wait_resumes_and_passes() {
    for k in 1..=40 {
        let lab = Lab::new();
        lab.write("lab.toml", &lab_text(""));
        lab.write("book.rhai", &book("    wait_reachable(600);"));
        let fault = format!("{k}:after");
        if !crashed_at(&lab, &["run", "book.rhai", "-i", "lab.toml"], &fault) {
            break;
        }
        let resumed = lab.cairn(&["resume", "--assume", "redo"]);
        assert!(
            resumed.code == 0 || resumed.stderr.contains("no unfinished run"),
            "{fault}: {}\n{}",
            resumed.stdout,
            resumed.stderr
        );
        // However it stopped, the guest booted once from the power-on, never twice.
        assert_eq!(boots(&lab, "hpc-vm01"), 2, "{fault}");
    }
}
