//! `cairn exec`: one command on the hosts a pattern selects, as a one-stage run.

use cairn_tests::{Lab, records};

const LAB: &str = r#"
[hosts."node[01-03]"]
address = "sim:linux?clock=virtual"
groups = ["compute"]
"#;

fn lab() -> Lab {
    let lab = Lab::new();
    lab.write("lab.toml", LAB);
    lab
}

#[test]
fn exec_runs_one_command_on_the_matched_hosts_as_a_journaled_run() {
    let lab = lab();
    let run = lab
        .cairn(&[
            "exec",
            "-i",
            "lab.toml",
            "compute:!node03",
            "--",
            "echo",
            "fw 16.35.2000",
            "\"q\"",
        ])
        .succeeds();
    for host in ["node01", "node02"] {
        assert_eq!(
            lab.sim_count(host, &["echo", "fw 16.35.2000", "\"q\""]),
            1,
            "{host}"
        );
        assert!(
            run.stdout
                .lines()
                .any(|l| l.contains(host) && l.contains("fw 16.35.2000 \"q\"")),
            "{host}'s output is shown: {}",
            run.stdout
        );
    }
    assert!(lab.sim_commands("node03").is_empty(), "node03 was excluded");
    run.stdout_has("2 done, 0 failed");
    let runs = lab.cairn(&["runs"]);
    assert_eq!(lab.runs().len(), 1);
    runs.stdout_has("2 host(s)");
    let journal = lab.journal("node01");
    let intents = records(&journal, "intent");
    assert_eq!(intents.len(), 1);
    assert_eq!(intents[0]["data"]["stage"], "exec");
    assert_eq!(intents[0]["data"]["args"]["argv"][1], "fw 16.35.2000");
}

#[test]
fn exec_gives_the_json_events_and_exit_codes_of_a_run() {
    let lab = lab();
    let json = lab
        .cairn(&[
            "exec",
            "-i",
            "lab.toml",
            "node01",
            "--json",
            "--read-only",
            "--",
            "hostname",
        ])
        .succeeds();
    let last = json.stdout.lines().last().unwrap_or_default();
    let finished: serde_json::Value = serde_json::from_str(last).unwrap_or_default();
    assert_eq!(finished["event"], "run_finished", "{}", json.stdout);
    assert_eq!(finished["done"], 1);
    assert!(
        lab.changes("node01").is_empty(),
        "--read-only is a query, not a change"
    );
    lab.assert_fails(
        &["exec", "-i", "lab.toml", "node0[1-2]", "--", "false"],
        1,
        &["`false` exited with 1"],
    );
    lab.assert_fails(
        &["exec", "-i", "lab.toml", "compte", "--", "hostname"],
        2,
        &["did you mean `compute`?"],
    );
    assert_eq!(lab.runs().len(), 2, "the typo created no run");
    lab.cairn(&["exec", "-i", "lab.toml", "compute", "--"])
        .fails(2);
}
