//! Pipelined stages on the shipped vSphere recipe and lab (`stage ... on guests after
//! esxi_host`): a VM starts its OFED stage once its own ESXi host is through the ESXi stage,
//! before the last ESXi host of the cluster is, never before its own; the controller's tests
//! between VMs keep their barrier; a run killed mid-pipeline resumes to the end an undisturbed
//! run reaches; an inventory without the var waits as at a barrier, with a warning; and the
//! checker refuses a pipelined stage whose var is wrong.

use cairn_tests::{Lab, records};
use serde_json::Value;

const RECIPE: &str = "runbooks/vsphere7-ib-roce-passthrough.rhai";
const INVENTORY: &str = "runbooks/labs/vsphere7-4node.toml";
const ESXI_STAGE: &str = "2.2-2.3.1 ESXi hosts, a batch at a time";
const OFED_STAGE: &str = "2.4 MLNX_OFED in the VM";
const LAST_GUEST_STAGE: &str = "2.4 both ports ACTIVE";
const TESTS_STAGE: &str = "3.1 ibverbs tests";
const PAIRS: [(&str, &str); 4] = [
    ("esx01", "compute-01"),
    ("esx02", "compute-02"),
    ("esx03", "compute-03"),
    ("esx04", "compute-04"),
];

fn at(record: &Value) -> f64 {
    record["data"]["at"].as_f64().unwrap_or(f64::NAN)
}

/// When `host` entered `stage` (its first stage record: a member's after its wait, another
/// host's when it reached the stage, so finished every stage before it).
fn entered(lab: &Lab, host: &str, stage: &str) -> f64 {
    let journal = lab.journal(host);
    records(&journal, "stage")
        .iter()
        .find(|r| r["data"]["name"] == stage)
        .map_or_else(|| panic!("{host} never entered stage `{stage}`"), |r| at(r))
}

/// When `host`'s last action in `stage` ended.
fn last_outcome_in(lab: &Lab, host: &str, stage: &str) -> f64 {
    let journal = lab.journal(host);
    let seqs: Vec<&Value> = records(&journal, "intent")
        .into_iter()
        .filter(|i| i["data"]["stage"] == stage)
        .map(|i| &i["data"]["seq"])
        .collect();
    records(&journal, "outcome")
        .iter()
        .filter(|o| seqs.contains(&&o["data"]["seq"]))
        .map(|o| at(o))
        .fold(f64::NAN, f64::max)
}

/// Every VM started its OFED stage no sooner than its own ESXi host finished the ESXi stage.
fn assert_no_vm_before_its_host(lab: &Lab, context: &str) {
    for (esx, vm) in PAIRS {
        // The ESXi host's last outcome of the ESXi stage is journaled before it reaches the
        // next stage, and the VM's stage record is written once it has.
        let host_done = last_outcome_in(lab, esx, ESXI_STAGE);
        let vm_started = entered(lab, vm, OFED_STAGE);
        assert!(
            vm_started >= host_done,
            "{context}: {vm} started `{OFED_STAGE}` at {vm_started}, before {esx} finished the ESXi stage at {host_done}"
        );
    }
}

/// The controller's tests between VMs began after every VM finished its last stage.
fn assert_tests_wait_for_every_vm(lab: &Lab, context: &str) {
    let tests = entered(lab, "controller", TESTS_STAGE);
    for (_, vm) in PAIRS {
        let done = last_outcome_in(lab, vm, LAST_GUEST_STAGE);
        assert!(
            tests >= done,
            "{context}: the controller's `{TESTS_STAGE}` began at {tests}, before {vm} finished at {done}"
        );
    }
}

/// The run's output with miette's wrapping undone (its box characters dropped, one space
/// between words), so a message reads whole whatever the terminal width.
fn flat(run: &cairn_tests::Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
        .replace(['│', '╭', '╰', '─', '·', '┬'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn ending(lab: &Lab, host: &str) -> Value {
    records(&lab.journal(host), "host_end")
        .last()
        .map(|end| end["data"]["status"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn a_vm_starts_on_its_own_esxi_host_before_the_last_one_and_the_tests_keep_their_barrier() {
    let lab = Lab::shipped();
    // One ESXi host at a time (the recipe's default): esx04 finishes long after esx01.
    let run = lab
        .cairn(&["run", RECIPE, "-i", INVENTORY, "--json"])
        .succeeds();
    // The status area is told whom a waiting VM waits for, by name.
    let waits: Vec<Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "waiting")
        .collect();
    assert!(
        waits.iter().any(|e| e["host"] == "compute-04"
            && e["reason"] == format!("stage `{OFED_STAGE}` waits for esx04 (var `esxi_host`)")),
        "no pipelined wait of compute-04 for esx04 among {waits:?}"
    );
    let first_vm = entered(&lab, "compute-01", OFED_STAGE);
    let last_host = last_outcome_in(&lab, "esx04", ESXI_STAGE);
    assert!(
        first_vm < last_host,
        "compute-01 began `{OFED_STAGE}` at {first_vm}, after esx04 finished the ESXi stage at {last_host}: it waited for the whole cluster"
    );
    // compute-01 had its OFED installed and its VM rebooted while esx04 was still rolling.
    assert!(
        last_outcome_in(&lab, "compute-01", OFED_STAGE) < last_host,
        "compute-01's OFED stage did not overlap esx04's ESXi stage"
    );
    assert_no_vm_before_its_host(&lab, "undisturbed");
    assert_tests_wait_for_every_vm(&lab, "undisturbed");
    // The journal says the stage was pipelined, and by whom each VM waited.
    for (esx, vm) in PAIRS {
        let journal = lab.journal(vm);
        let stage = records(&journal, "stage")
            .into_iter()
            .find(|r| r["data"]["name"] == OFED_STAGE)
            .unwrap_or_else(|| panic!("{vm} has no record of `{OFED_STAGE}`"));
        assert_eq!(stage["data"]["after"], "esxi_host", "{vm}: {stage}");
        assert_eq!(
            stage["data"]["waited_for"],
            serde_json::json!([esx]),
            "{vm}: {stage}"
        );
    }
    let journal = lab.journal("compute-01");
    let tests = records(&journal, "stage")
        .into_iter()
        .find(|r| r["data"]["name"] == TESTS_STAGE)
        .unwrap_or_else(|| panic!("compute-01 has no record of `{TESTS_STAGE}`"));
    assert!(tests["data"].get("after").is_none(), "a barrier: {tests}");
}

#[test]
fn a_run_killed_mid_pipeline_resumes_to_the_end_of_an_undisturbed_run() {
    let clean = Lab::shipped();
    assert_eq!(clean.cairn(&["run", RECIPE, "-i", INVENTORY]).code, 0);
    let total: usize = PAIRS
        .iter()
        .flat_map(|(esx, vm)| [*esx, *vm])
        .chain(["controller"])
        .map(|h| clean.journal(h).len())
        .sum();
    // A kill at a journal write between a third and two thirds of the run: with one ESXi host
    // at a time, some VM is then in its stages while later ESXi hosts still roll.
    let mut mid_pipeline = 0;
    for k in (total / 3..total * 2 / 3).step_by((total / 12).max(1)) {
        let lab = Lab::shipped();
        let fault = format!("{k}:after");
        let crashed = lab.cairn_with(
            &["run", RECIPE, "-i", INVENTORY],
            &[("CAIRN_FAULT_EXIT_AT_WRITE", &fault)],
        );
        assert_eq!(crashed.code, 137, "kill at {fault}: {}", crashed.stderr);
        let vm_in = PAIRS.iter().any(|(_, vm)| {
            records(&lab.journal(vm), "stage")
                .iter()
                .any(|r| r["data"]["name"] == OFED_STAGE)
        });
        let host_rolling = PAIRS.iter().any(|(esx, _)| {
            !records(&lab.journal(esx), "stage")
                .iter()
                .any(|r| r["data"]["name"] == OFED_STAGE)
        });
        if vm_in && host_rolling {
            mid_pipeline += 1;
        }
        let resumed = lab.cairn(&["resume"]);
        assert_eq!(
            resumed.code, 0,
            "kill at {fault}: resume\n{}\n{}",
            resumed.stdout, resumed.stderr
        );
        for (esx, vm) in PAIRS {
            for host in [esx, vm] {
                assert_eq!(ending(&lab, host), "done", "kill at {fault}: {host}");
                assert_eq!(
                    lab.sim_count(host, &["reboot"]),
                    clean.sim_count(host, &["reboot"]),
                    "kill at {fault}: {host} rebooted another number of times than an undisturbed run"
                );
            }
        }
        assert_no_vm_before_its_host(&lab, &format!("kill at {fault}, resumed"));
        assert_tests_wait_for_every_vm(&lab, &format!("kill at {fault}, resumed"));
    }
    assert!(
        mid_pipeline > 0,
        "no kill fell while a VM was in its stages and an ESXi host still rolled"
    );
}

#[test]
fn an_inventory_without_the_var_is_warned_and_waits_as_at_a_barrier() {
    // An inventory written before the recipe was pipelined: the VMs do not name their host.
    let lab = Lab::shipped();
    let shipped = std::fs::read_to_string(lab.path().join(INVENTORY)).unwrap_or_default();
    let old = without_esxi_host(&shipped);
    assert_ne!(
        old, shipped,
        "the shipped lab names no `esxi_host` any more"
    );
    lab.write("old-lab.toml", &old);
    let check = lab.cairn(&["check", RECIPE, "-i", "old-lab.toml"]);
    let text = flat(&check);
    assert_eq!(check.code, 0, "{text}");
    assert!(
        text.contains("4 hosts of `guests` have no such var (compute-01, compute-02, compute-03, compute-04): they wait for every host of the run, as at a barrier"),
        "{text}"
    );
    lab.cairn(&["run", RECIPE, "-i", "old-lab.toml"]).succeeds();
    for (esx, vm) in PAIRS {
        assert_eq!(ending(&lab, esx), "done", "{esx}");
        assert_eq!(ending(&lab, vm), "done", "{vm}");
    }
    // As at a barrier: no VM began its OFED stage before the last ESXi host was through.
    let last_host = last_outcome_in(&lab, "esx04", ESXI_STAGE);
    for (_, vm) in PAIRS {
        let began = entered(&lab, vm, OFED_STAGE);
        assert!(
            began >= last_host,
            "{vm} began `{OFED_STAGE}` at {began}, before esx04 was through at {last_host}"
        );
    }
}

/// The shipped lab's text without its `esxi_host = "..."` vars.
fn without_esxi_host(inventory: &str) -> String {
    inventory
        .lines()
        .map(|line| match line.find(", esxi_host = ") {
            Some(at) => format!("{} }}", &line[..at]),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `cairn check` of the shipped lab with a runbook holding `stage`.
fn check(stage: &str) -> cairn_tests::Run {
    let lab = Lab::shipped();
    lab.write("pipelined.rhai", stage);
    lab.cairn(&["check", "pipelined.rhai", "-i", INVENTORY])
}

#[test]
fn the_checker_refuses_an_unknown_var_with_a_did_you_mean_and_a_span() {
    let run = check("stage \"ofed\" on guests after esxi_hots {\n    log(\"x\");\n}\n");
    let text = flat(&run);
    assert_eq!(run.code, 2, "{text}");
    assert!(text.contains("compute-01 has no var `esxi_hots`"), "{text}");
    assert!(text.contains("did you mean `esxi_host`?"), "{text}");
    assert!(text.contains("[pipelined.rhai:1:30]"), "{text}");
    // One error for the var, not one per VM.
    assert!(
        text.contains("(so do compute-02, compute-03, compute-04)"),
        "{text}"
    );
}

#[test]
fn the_checker_refuses_a_var_naming_no_host_of_the_inventory() {
    // `vm` names the VM of each ESXi host, and the VMs have none: the ESXi stage waits by it.
    let lab = Lab::shipped();
    let path = lab.path().join(INVENTORY);
    let inventory = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    lab.write(
        INVENTORY,
        &inventory.replacen("esxi_host = \"esx02\"", "esxi_host = \"esx20\"", 1),
    );
    lab.write(
        "pipelined.rhai",
        "stage \"ofed\" on guests after esxi_host {\n    log(\"x\");\n}\n",
    );
    let run = lab.cairn(&["check", "pipelined.rhai", "-i", INVENTORY]);
    let text = flat(&run);
    assert_eq!(run.code, 2, "{text}");
    assert!(
        text.contains(
            "compute-02's var `esxi_host` names esx20, which is not a host of the inventory"
        ),
        "{text}"
    );
    assert!(text.contains("did you mean `esx02`?"), "{text}");
}

#[test]
fn the_checker_refuses_a_pipelined_controller_stage_and_a_rolling_pipelined_one() {
    let run = check("stage \"tests\" on controller after esxi_host {\n    log(\"x\");\n}\n");
    let text = flat(&run);
    assert_eq!(run.code, 2, "{text}");
    assert!(text.contains("on controller cannot be pipelined"), "{text}");
    let run = check("stage \"ofed\" on guests after esxi_host serial 1 {\n    log(\"x\");\n}\n");
    let text = flat(&run);
    assert_eq!(run.code, 2, "{text}");
    assert!(
        text.contains("a pipelined stage cannot also roll"),
        "{text}"
    );
    let run = check("stage \"ofed\" on guests aftr esxi_host {\n    log(\"x\");\n}\n");
    let text = flat(&run);
    assert_eq!(run.code, 2, "{text}");
    assert!(text.contains("did you mean `after`?"), "{text}");
}

#[test]
fn the_checker_refuses_a_whole_group_call_in_a_pipelined_stage() {
    let run = check(
        "stage \"peers\" on guests after esxi_host {\n    log(hosts(\"guests\").len());\n    fabric::all_pairs(\"guests\", #{});\n}\n",
    );
    let text = flat(&run);
    assert_eq!(run.code, 2, "{text}");
    for call in ["hosts", "fabric::all_pairs"] {
        assert!(
            text.contains(&format!(
                "`{call}` in stage `peers`, which is pipelined (`after esxi_host`)"
            )),
            "{call}: {text}"
        );
    }
    assert!(text.contains("[pipelined.rhai:2:9]"), "{text}");
    assert!(text.contains("[pipelined.rhai:3:13]"), "{text}");
}

#[test]
fn hosts_from_a_function_in_a_pipelined_stage_fails_instead_of_reading_a_partial_run() {
    let lab = Lab::shipped();
    // Through a function, the checker cannot see the call: the run refuses it when it comes.
    lab.write(
        "pipelined.rhai",
        "fn peers() { hosts(\"guests\") }\nstage \"peers\" on guests after esxi_host {\n    log(peers().len());\n}\n",
    );
    let run = lab.cairn(&["run", "pipelined.rhai", "-i", INVENTORY]);
    let text = flat(&run);
    assert_ne!(run.code, 0, "{text}");
    assert!(
        text.contains("which is pipelined (`after esxi_host`)"),
        "{text}"
    );
}
