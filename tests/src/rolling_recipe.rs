//! Rolling the shipped vSphere recipe as an administrator would: the budget is taken before a
//! VM is powered off, a host waiting for it is not failed, the first failed host stops the
//! roll, and the run ends by saying what it left down.

use cairn_tests::{Lab, records};
use serde_json::Value;

pub(crate) const RECIPE: &str = "runbooks/vsphere7-ib-roce-passthrough.rhai";
pub(crate) const INVENTORY: &str = "runbooks/labs/vsphere7-4node.toml";
const ESXI_STAGE: &str = "2.2-2.3.1 ESXi hosts, a batch at a time";
const OFED_STAGE: &str = "2.4 MLNX_OFED in the VM";

/// The shipped lab, with `host`'s firmware ignoring the staged port 1 link type (its check
/// after the reboot fails the host, in maintenance mode with its VM off).
pub(crate) fn faulted_lab(host: &str) -> Lab {
    let lab = Lab::shipped();
    let path = lab.path().join(INVENTORY);
    let inventory = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let section = format!("[hosts.{host}]\naddress = \"sim:esxi7?clock=virtual&reboot_secs=120");
    let faulted = inventory.replacen(
        &section,
        &format!("{section}&fault_ignore_staged=LINK_TYPE_P1"),
        1,
    );
    assert_ne!(faulted, inventory, "no {section} in the lab");
    lab.write(INVENTORY, &faulted);
    lab
}

fn roll(lab: &Lab, extra: &[&str]) -> cairn_tests::Run {
    let mut args = vec!["run", RECIPE, "-i", INVENTORY];
    args.extend_from_slice(extra);
    lab.cairn(&args)
}

/// vCenter's power commands, in the order it ran them: (VM, whether on).
fn power_commands(lab: &Lab) -> Vec<(String, bool)> {
    lab.sim_commands("vcenter")
        .iter()
        .filter_map(|argv| {
            let at = argv.iter().position(|a| a == "power")?;
            match &argv[at..] {
                [_, flag, vm, state, ..] if flag == "--vm" => Some((vm.clone(), state == "--on")),
                _ => None,
            }
        })
        .collect()
}

/// The most VMs powered off at once, walking vCenter's power commands in order.
fn most_vms_off_at_once(lab: &Lab) -> usize {
    let mut off = std::collections::BTreeSet::new();
    let mut most = 0;
    for (vm, on) in power_commands(lab) {
        if on {
            off.remove(&vm);
        } else {
            off.insert(vm);
        }
        most = most.max(off.len());
    }
    most
}

/// How the host's part of the run ended: `done`, `failed` or `cancelled`.
fn ending(lab: &Lab, host: &str) -> Value {
    records(&lab.journal(host), "host_end")
        .last()
        .map(|end| end["data"]["status"].clone())
        .unwrap_or(Value::Null)
}

/// Whether the host ran an action in `stage`.
fn acted_in(lab: &Lab, host: &str, stage: &str) -> bool {
    records(&lab.journal(host), "intent")
        .iter()
        .any(|i| i["data"]["stage"] == stage)
}

#[test]
fn the_default_roll_stops_at_its_first_failed_host_and_says_what_it_left_down() {
    let lab = faulted_lab("esx02");
    let run = roll(&lab, &[]);
    let text = run.output();
    assert_eq!(run.code, 1, "{text}");
    // esx01's batch went through; the run then stopped at the guests' stage.
    assert_eq!(ending(&lab, "esx01"), "cancelled", "{text}");
    assert_eq!(ending(&lab, "esx02"), "failed", "{text}");
    for host in ["esx03", "esx04"] {
        assert_eq!(
            ending(&lab, host),
            "cancelled",
            "{host} is stopped, not failed: {text}"
        );
        assert!(
            !acted_in(&lab, host, ESXI_STAGE),
            "{host} was touched: {text}"
        );
    }
    let powered: Vec<(String, bool)> = power_commands(&lab);
    assert!(
        powered.contains(&("compute-01".to_owned(), true)),
        "compute-01 was powered on again: {powered:?}"
    );
    assert!(
        powered
            .iter()
            .all(|(vm, _)| vm == "compute-01" || vm == "compute-02"),
        "only the first two batches' VMs were powered: {powered:?}"
    );
    // The VMs' stages are pipelined: compute-01 may have gone on once esx01 was through
    // (before esx02 failed), the VMs of the failed and the untouched hosts never did.
    for guest in ["compute-02", "compute-03", "compute-04"] {
        assert!(
            !acted_in(&lab, guest, OFED_STAGE),
            "{guest} went on: {text}"
        );
    }
    assert!(
        run.stdout.contains(&format!(
            "the roll stopped at the first failed host (esx02 failed in stage `{ESXI_STAGE}`)"
        )),
        "{text}"
    );
    assert!(run.stdout.contains("--max-fail-percent N"), "{text}");
    assert!(
        run.stdout
            .contains("left down: esx02 in maintenance mode; VM compute-02 powered off (by esx02)"),
        "{text}"
    );
    // A resume starts by saying where it continues from.
    let resumed = lab.cairn(&["resume"]);
    assert!(
        resumed.output().contains(
            "the run was left with esx02 in maintenance mode, VM compute-02 powered off (by esx02): the resume continues from there"
        ),
        "{}",
        resumed.output()
    );
}

#[test]
fn under_a_budget_of_one_a_faulted_host_fails_alone_and_no_vm_goes_down_after_it() {
    let lab = faulted_lab("esx02");
    let run = roll(&lab, &["--param", "rolling=0", "--max-unavailable", "1"]);
    let text = run.output();
    assert_eq!(run.code, 1, "{text}");
    assert_eq!(most_vms_off_at_once(&lab), 1, "{:?}", power_commands(&lab));
    assert_eq!(ending(&lab, "esx02"), "failed", "{text}");
    for host in ["esx01", "esx03", "esx04"] {
        assert_ne!(
            ending(&lab, host),
            "failed",
            "{host} waited, it did not fail: {text}"
        );
    }
    // No VM went down after compute-02's power-off: the roll stopped there.
    let powered = power_commands(&lab);
    let last_off = powered.iter().rposition(|(_, on)| !on);
    assert_eq!(
        last_off.map(|i| powered[i].0.as_str()),
        Some("compute-02"),
        "{powered:?}"
    );
    assert!(!text.contains("held by hosts that left the run"), "{text}");
    assert!(
        text.contains("the roll stopped at the first failed host (esx02 failed"),
        "{text}"
    );
    // The failed host's VM never went on to its OFED reboot. A VM whose own ESXi host was
    // through before esx02 failed may have (its stages are pipelined after that host:
    // `pipelined_stages.rs` checks the order), depending on which host the budget let go first.
    assert_eq!(
        lab.sim_count("compute-02", &["reboot"]),
        0,
        "compute-02 rebooted: {text}"
    );
}

#[test]
fn under_a_budget_of_two_no_more_than_two_vms_are_off_at_once() {
    let lab = Lab::shipped();
    let run = roll(&lab, &["--param", "rolling=0", "--max-unavailable", "2"]);
    let text = run.output();
    assert_eq!(run.code, 0, "{text}");
    let powered = power_commands(&lab);
    assert_eq!(
        powered.iter().filter(|(_, on)| !on).count(),
        4,
        "every VM was powered off once: {powered:?}"
    );
    assert_eq!(most_vms_off_at_once(&lab), 2, "{powered:?}");
    assert!(!text.contains("left down:"), "{text}");
}

/// The shipped lab with esx03 on the wall clock, its reboot taking `secs` real seconds, so a
/// signal can arrive while it is down.
fn slow_reboot_lab(secs: u32) -> Lab {
    let lab = Lab::shipped();
    let path = lab.path().join(INVENTORY);
    let inventory = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let section = "[hosts.esx03]\naddress = \"sim:esxi7?clock=virtual&reboot_secs=120";
    let slow = inventory.replacen(
        section,
        &format!("[hosts.esx03]\naddress = \"sim:esxi7?reboot_secs={secs}"),
        1,
    );
    assert_ne!(slow, inventory, "no {section} in the lab");
    lab.write(INVENTORY, &slow);
    lab
}

/// Whether `host` has journaled the old boot id of a reboot with no outcome yet: the reboot is
/// sent, and the host is down.
fn rebooting(lab: &Lab, host: &str) -> bool {
    let journal = lab.journal(host);
    let Some(seq) = records(&journal, "intent")
        .iter()
        .rev()
        .find(|i| i["data"]["builtin"] == "reboot")
        .map(|i| i["data"]["seq"].clone())
    else {
        return false;
    };
    let sent = records(&journal, "progress")
        .iter()
        .any(|p| p["data"]["seq"] == seq);
    let ended = records(&journal, "outcome")
        .iter()
        .any(|o| o["data"]["seq"] == seq);
    sent && !ended
}

#[test]
fn ctrl_c_during_a_reboot_says_the_host_is_down_in_maintenance_with_its_vm_off_and_resume_reboots_it_once()
 {
    let lab = slow_reboot_lab(4);
    let command = lab.command(&["run", RECIPE, "-i", INVENTORY, "--param", "rolling=1"]);
    let run = crate::hangs::within_after(
        command,
        std::time::Duration::from_secs(240),
        "SIGINT",
        |pid| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(200);
            while !rebooting(&lab, "esx03") {
                assert!(
                    std::time::Instant::now() < deadline,
                    "esx03 never went down for its reboot"
                );
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            let sent = std::process::Command::new("kill")
                .args(["-INT", &pid.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            assert!(sent, "kill -INT");
        },
    );
    let text = run.output();
    assert_eq!(run.code, 130, "{text}");
    assert!(
        run.stdout.contains(
            "left down: esx03 in maintenance mode; VM compute-03 powered off (by esx03); esx03 rebooting: the reboot was sent and esx03 not seen back"
        ),
        "{text}"
    );
    assert!(!run.stdout.contains("still need a reboot"), "{text}");
    // The next batch never started: esx04 was not taken down.
    assert!(!acted_in(&lab, "esx04", ESXI_STAGE), "{text}");
    assert_eq!(lab.sim_count("esx03", &["reboot"]), 1, "{text}");

    let resumed = lab.cairn(&["resume"]);
    let resumed_text = resumed.output();
    assert_eq!(resumed.code, 0, "{resumed_text}");
    // A guest past its ESXi host (pipelined) may have an install staged too, listed first.
    assert!(
        resumed.stdout.contains("the run was left with ")
            && resumed.stdout.contains(
                "esx03 in maintenance mode, VM compute-03 powered off (by esx03), esx03 rebooting"
            ),
        "{resumed_text}"
    );
    // The reboot already sent is settled by the boot id, not sent again: esx03 rebooted as
    // often as in a run nobody stopped.
    let clean = Lab::shipped();
    assert_eq!(roll(&clean, &[]).code, 0);
    assert_eq!(
        lab.sim_count("esx03", &["reboot"]),
        clean.sim_count("esx03", &["reboot"]),
        "{resumed_text}"
    );
    assert_eq!(most_vms_off_at_once(&lab), 1, "{resumed_text}");
}
