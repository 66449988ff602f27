//! Fencing on the host, through the simulator: every changing command runs under the host's
//! fence at the lease's epoch (logged to the host's `fenced.log`), a caller below the host's
//! epoch is refused as `fenced`, and a resume settles an interrupted action from the fence's
//! record instead of asking or running it again (docs/fleet.md, "Fencing on the host").

use cairn_tests::{Lab, records};
use serde_json::Value;

/// Two changing actions.
const TWO_ECHOES: &str =
    "stage \"s\" on all {\n    run([\"echo\", \"one\"]);\n    run([\"echo\", \"two\"]);\n}\n";

fn lab(options: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", TWO_ECHOES);
    lab.write(
        "inv.toml",
        &format!("[hosts.n1]\naddress = \"sim:linux?clock=virtual{options}\"\n"),
    );
    lab
}

fn fenced_log(lab: &Lab) -> Vec<Value> {
    std::fs::read_to_string(lab.path().join(".cairn/sim/n1/fenced.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The result the journal recorded for action `seq`.
fn outcome(lab: &Lab, seq: u64) -> Value {
    records(&lab.journal("n1"), "outcome")
        .into_iter()
        .rfind(|r| r["data"]["seq"] == seq)
        .map(|r| r["data"]["result"].clone())
        .unwrap_or(Value::Null)
}

#[test]
fn each_changing_command_is_logged_once_under_the_runs_epoch_and_owner() {
    let lab = lab("");
    lab.cairn(&["run", "book.rhai", "-i", "inv.toml"])
        .succeeds();
    let id = lab.runs().pop().unwrap_or_default();
    let log = fenced_log(&lab);
    let commands: Vec<&str> = log.iter().filter_map(|l| l["command"].as_str()).collect();
    assert_eq!(commands, ["echo one", "echo two"], "{log:?}");
    for (line, seq) in log.iter().zip(1..) {
        let step = line["step"].as_str().unwrap_or_default();
        let parts: Vec<&str> = step.split('.').collect();
        assert_eq!(parts.len(), 4, "RUN.SEQ.AT.N: {step}");
        assert_eq!(
            (parts[0], parts[1], parts[3]),
            (id.as_str(), &*seq.to_string(), "1")
        );
        let owner = line["owner"].as_str().unwrap_or_default();
        assert!(owner.starts_with(&format!("{id}@")), "{owner}");
    }
    assert_eq!(log[0]["epoch"], log[1]["epoch"], "one lease, one epoch");
    assert!(log[0]["epoch"].as_u64().unwrap_or(0) > 0);
    // The next run's lease has a higher epoch, which the host now keeps.
    lab.cairn(&["run", "book.rhai", "-i", "inv.toml"])
        .succeeds();
    let log = fenced_log(&lab);
    assert_eq!(log.len(), 4);
    assert!(
        log[2]["epoch"].as_u64() > log[1]["epoch"].as_u64(),
        "{log:?}"
    );
}

#[test]
fn fence_false_runs_the_same_commands_unfenced() {
    let lab = lab("&fence=false");
    lab.cairn(&["run", "book.rhai", "-i", "inv.toml"])
        .succeeds();
    assert_eq!(lab.sim_count("n1", &["echo"]), 2);
    assert!(fenced_log(&lab).is_empty());
}

#[test]
fn a_caller_below_the_hosts_epoch_is_fenced_and_that_host_stops_at_once() {
    let lab = lab("");
    lab.cairn(&["run", "book.rhai", "-i", "inv.toml"])
        .succeeds();
    // Another controller took the host over at a far higher epoch.
    let path = lab.path().join(".cairn/sim/n1/fence.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut fence: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    fence["epoch"] = Value::from(u64::MAX / 2);
    fence["owner"] = Value::from("other@jump02:77");
    std::fs::write(&path, fence.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let stale = lab.cairn(&["run", "book.rhai", "-i", "inv.toml"]);
    assert_ne!(stale.code, 0, "{}", stale.stdout);
    let said = format!("{}{}", stale.stdout, stale.stderr);
    assert!(said.contains("fenced: epoch "), "{said}");
    assert!(said.contains("which other@jump02:77 holds"), "{said}");
    assert_eq!(
        lab.sim_count("n1", &["echo"]),
        2,
        "the stale run ran nothing, and did not go on to its second action"
    );
    let tried = records(&lab.journal("n1"), "intent").len();
    assert_eq!(tried, 1, "stopped at its first action, not retried");
}

#[test]
fn a_change_whose_connection_dropped_is_settled_on_resume_from_the_fence_record() {
    let lab = lab("&drop_once=echo");
    let first = lab.cairn(&["run", "book.rhai", "-i", "inv.toml"]);
    assert_ne!(first.code, 0, "the dropped connection stops the host");
    assert_eq!(lab.sim_count("n1", &["echo", "one"]), 1);
    lab.cairn(&["resume"]).succeeds();
    assert_eq!(lab.sim_count("n1", &["echo", "one"]), 1, "not run again");
    assert_eq!(lab.sim_count("n1", &["echo", "two"]), 1);
    assert_eq!(outcome(&lab, 1)["stdout"], "one\n", "the recorded output");
}

#[test]
fn unfenced_the_same_drop_still_needs_a_decision() {
    let lab = lab("&drop_once=echo&fence=false");
    let first = lab.cairn(&["run", "book.rhai", "-i", "inv.toml"]);
    assert_ne!(first.code, 0);
    lab.assert_fails(&["resume"], 2, &["outcome was not recorded"]);
    assert_eq!(lab.sim_count("n1", &["echo", "one"]), 1);
}

/// A crash right before the first action's outcome is journaled (the command ran): the resume
/// answers it from the fence's record; a crash right after its intent (the command never ran):
/// the resume runs it, once.
#[test]
fn a_resume_after_a_kill_runs_each_command_exactly_once() {
    let whole = lab("");
    whole
        .cairn(&["run", "book.rhai", "-i", "inv.toml"])
        .succeeds();
    let journal = whole.journal("n1");
    let line_of = |kind: &str| {
        journal
            .iter()
            .position(|r| r["type"] == kind && r["data"]["seq"] == 1)
            .map_or(0, |i| i + 1)
    };
    for fault in [
        format!("{}:before", line_of("outcome")),
        format!("{}:after", line_of("intent")),
    ] {
        let lab = lab("");
        let crashed = lab.cairn_with(
            &["run", "book.rhai", "-i", "inv.toml"],
            &[("CAIRN_FAULT_EXIT_AT_WRITE", &fault)],
        );
        assert_eq!(crashed.code, 137, "{fault}: {}", crashed.stderr);
        let resumed = lab.cairn(&["resume"]);
        assert_eq!(
            resumed.code, 0,
            "{fault}: {}\n{}",
            resumed.stdout, resumed.stderr
        );
        for word in ["one", "two"] {
            assert_eq!(lab.sim_count("n1", &["echo", word]), 1, "{fault}: {word}");
        }
        assert_eq!(outcome(&lab, 1)["stdout"], "one\n", "{fault}");
    }
}

#[test]
fn two_working_folders_sharing_cairn_sim_dir_meet_on_one_hosts_lease() {
    let fleet = Lab::new();
    let sim_dir = fleet.path().join("fleet");
    std::fs::create_dir(&sim_dir).unwrap_or_else(|e| panic!("{e}"));
    let sim_dir = sim_dir.to_string_lossy().into_owned();
    let slow = "stage \"s\" on all {\n    run([\"echo\", \"A\"]);\n    reboot();\n}\n";
    let (a, b) = (Lab::new(), Lab::new());
    for lab in [&a, &b] {
        lab.write("book.rhai", slow);
        lab.write(
            "inv.toml",
            "[hosts.n1]\naddress = \"sim:linux?reboot_secs=3\"\n",
        );
    }
    // One lease folder, as on one controller machine.
    let leases = fleet.path().join("leases");
    let leases = leases.to_string_lossy().into_owned();
    let mut first = a.command(&["run", "book.rhai", "-i", "inv.toml"]);
    first
        .env("CAIRN_SIM_DIR", &sim_dir)
        .env("CAIRN_LEASE_DIR", &leases)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut first = first.spawn().unwrap_or_else(|e| panic!("spawn: {e}"));
    let log = fleet.path().join("fleet/n1/commands.log");
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(&log)
        .unwrap_or_default()
        .contains("\"A\"")
    {
        assert!(
            started.elapsed().as_secs() < 20,
            "the first run never echoed"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = b.cairn_with(
        &["run", "book.rhai", "-i", "inv.toml"],
        &[("CAIRN_SIM_DIR", &sim_dir), ("CAIRN_LEASE_DIR", &leases)],
    );
    let _ = first.wait();
    let second = second.fails(2);
    second.stderr_has("n1 is held by run");
    assert!(
        !b.path().join(".cairn/sim/n1").exists(),
        "the shared fleet, not b's own"
    );
}

#[test]
fn a_cairn_sim_dir_that_is_not_a_folder_is_refused_before_anything_runs() {
    let lab = lab("");
    let missing = lab.path().join("no-such-fleet");
    let missing = missing.to_string_lossy().into_owned();
    let run = lab
        .cairn_with(
            &["run", "book.rhai", "-i", "inv.toml"],
            &[("CAIRN_SIM_DIR", &missing)],
        )
        .fails(2);
    run.stderr_has("CAIRN_SIM_DIR names");
    run.stderr_has("no-such-fleet");
    run.stderr_has("unset CAIRN_SIM_DIR");
    assert!(!lab.path().join("no-such-fleet").exists(), "no fresh fleet");
    assert!(lab.runs().is_empty(), "no run was created");
}

/// The step records `n1`'s simulated fence holds.
fn fence_steps(lab: &Lab) -> Vec<String> {
    let text =
        std::fs::read_to_string(lab.path().join(".cairn/sim/n1/fence.json")).unwrap_or_default();
    let fence: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    fence["steps"]
        .as_object()
        .map(|steps| steps.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn a_host_that_ends_done_prunes_its_runs_records_and_a_failed_one_keeps_them() {
    // The first echo fails once: the host fails and keeps its records for a resume.
    let lab = lab("&fail_once=echo");
    lab.cairn(&["run", "book.rhai", "-i", "inv.toml"]).fails(1);
    let id = lab.runs().pop().unwrap_or_default();
    let kept = fence_steps(&lab);
    assert!(
        kept.iter().any(|step| step.starts_with(&format!("{id}."))),
        "a failed host keeps its records: {kept:?}"
    );
    lab.cairn(&["resume"]).succeeds();
    let left = fence_steps(&lab);
    assert!(
        left.iter().all(|step| !step.starts_with(&format!("{id}."))),
        "a host that ended done keeps none of the run's records: {left:?}"
    );
    let fenced: Vec<String> = fenced_log(&lab)
        .iter()
        .filter_map(|line| line["command"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        fenced,
        ["echo one", "echo one", "echo two"],
        "the failed echo again, then the rest"
    );
}
