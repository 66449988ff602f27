//! Rolling the shipped vSphere recipe as an administrator would: the budget is taken before a
//! VM is powered off, a host waiting for it is not failed, the first failed host stops the
//! roll, and the run ends by saying what it left down.

use cairn_tests::{Lab, records};
use serde_json::Value;

const RECIPE: &str = "runbooks/vsphere7-ib-roce-passthrough.rhai";
const INVENTORY: &str = "runbooks/labs/vsphere7-4node.toml";
const ESXI_STAGE: &str = "2.2-2.3.1 ESXi hosts, a batch at a time";
const OFED_STAGE: &str = "2.4 MLNX_OFED in the VM";

/// The shipped lab, with `host`'s firmware ignoring the staged port 1 link type (its check
/// after the reboot fails the host, in maintenance mode with its VM off).
fn faulted_lab(host: &str) -> Lab {
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

fn output(run: &cairn_tests::Run) -> String {
    format!("{}\n{}", run.stdout, run.stderr)
}

#[test]
fn the_default_roll_stops_at_its_first_failed_host_and_says_what_it_left_down() {
    let lab = faulted_lab("esx02");
    let run = roll(&lab, &[]);
    let text = output(&run);
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
    for guest in ["compute-01", "compute-02", "compute-03", "compute-04"] {
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
        output(&resumed).contains(
            "the run was left with esx02 in maintenance mode, VM compute-02 powered off (by esx02): the resume continues from there"
        ),
        "{}",
        output(&resumed)
    );
}

#[test]
fn under_a_budget_of_one_a_faulted_host_fails_alone_and_no_vm_goes_down_after_it() {
    let lab = faulted_lab("esx02");
    let run = roll(&lab, &["--param", "rolling=0", "--max-unavailable", "1"]);
    let text = output(&run);
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
    for guest in ["compute-01", "compute-02", "compute-03", "compute-04"] {
        assert_eq!(
            lab.sim_count(guest, &["reboot"]),
            0,
            "{guest} rebooted: {text}"
        );
    }
}

#[test]
fn under_a_budget_of_two_no_more_than_two_vms_are_off_at_once() {
    let lab = Lab::shipped();
    let run = roll(&lab, &["--param", "rolling=0", "--max-unavailable", "2"]);
    let text = output(&run);
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
