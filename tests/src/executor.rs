//! Runs on simulated hosts: stages, reboots, barriers, failures.

use cairn_tests::{Lab, records};

pub(crate) const THREE_STAGES: &str = r#"
param marker = "cairn";

stage "prepare" on compute {
    run(["echo", marker]);
    reboot();
}

stage "configure" on compute {
    let name = run(["hostname"], #{ read_only: true }).stdout.trimmed();
    publish("name", name);
    reboot();
}

stage "verify" on compute {
    let boots = run(["journalctl", "--list-boots"], #{ read_only: true }).stdout;
    let lines = boots.split("\n").filter(|l| l.trimmed() != "");
    expect(lines.len() == 3, `expected 3 boots, journalctl lists ${lines.len()}`);
    expect(hosts("compute").all(|h| h.published.name == h.name), "every host published its name");
    expect(host().published.name == host().name, "host() holds what this host published");
}
"#;

pub(crate) fn inventory(hosts: &str, options: &str) -> String {
    format!("[hosts.\"{hosts}\"]\naddress = \"sim:linux?{options}\"\ngroups = [\"compute\"]\n")
}

#[test]
fn three_stages_and_two_reboots_on_eight_hosts() {
    let lab = Lab::with_book(
        THREE_STAGES,
        &inventory("node[01-08]", "reboot_secs=2&clock=virtual"),
    );
    let run = lab.run_book(&[]).succeeds();
    run.stdout_has("8 done, 0 failed");
    for n in 1..=8 {
        let host = format!("node{n:02}");
        let journal = lab.journal(&host);
        let intents = records(&journal, "intent");
        let seqs: Vec<u64> = intents
            .iter()
            .filter_map(|i| i["data"]["seq"].as_u64())
            .collect();
        assert_eq!(
            seqs,
            (1..=6).collect::<Vec<_>>(),
            "{host}: each action journaled once"
        );
        assert_eq!(records(&journal, "outcome").len(), 6, "{host}");
        assert_eq!(lab.sim_count(&host, &["reboot"]), 2, "{host}");
        assert_eq!(lab.sim_count(&host, &["echo", "cairn"]), 1, "{host}");
    }
}

#[test]
fn the_issue_inventory_works_as_written_with_real_two_second_reboots() {
    let lab = Lab::with_book(
        THREE_STAGES,
        "[hosts.\"node[01-08]\"]\naddress = \"sim:linux?reboot_secs=2\"\ngroups = [\"compute\"]\n",
    );
    let started = std::time::Instant::now();
    let run = lab.run_book(&[]).succeeds();
    assert!(
        started.elapsed().as_secs() >= 4,
        "two real reboots of two seconds each"
    );
    run.stdout_has("rebooting");
}

#[test]
fn a_reboot_that_never_comes_back_fails_only_that_host() {
    let lab = Lab::with_book(
        THREE_STAGES,
        &(inventory("node[01-03]", "reboot_secs=2&clock=virtual")
            + "\n[hosts.stuck]\naddress = \"sim:linux?clock=virtual&fault_reboot_hang=true\"\ngroups = [\"compute\"]\n"),
    );
    let run = lab.run_book(&["--reboot-timeout", "120"]).fails(1);
    run.stdout_has("3 done, 1 failed");
    run.stderr_has("`stuck` did not come back with a new boot id within 120 s");
    let end = records(&lab.journal("stuck"), "host_end")[0].clone();
    assert_eq!(end["data"]["status"], "failed");
}

#[test]
fn a_failed_host_never_holds_a_barrier() {
    let lab = Lab::with_book(
        r#"
        stage "one" on all { if host().name == "node02" { run(["false"]); } }
        stage "two" on all { run(["true"]); }
        stage "three" on all { run(["true"]); }
        "#,
        &inventory("node[01-04]", "clock=virtual"),
    );
    let run = lab.run_book(&[]).fails(1);
    run.stdout_has("3 done, 1 failed");
    run.stderr_has("`false` exited with 1");
    assert!(
        run.stderr.contains("book.rhai:2"),
        "the failure points at the runbook line: {}",
        run.stderr
    );
}

#[test]
fn a_failed_run_lists_the_changes_it_left_staged_for_the_next_boot_and_the_resume_says_so() {
    let lab = Lab::with_book(
        "stage \"one\" on all {\n    run([\"true\"], #{ reboot_required: true });\n    run([\"false\"]);\n}\n",
        &inventory("node01", "clock=virtual"),
    );
    let run = lab.run_book(&[]).fails(1);
    run.stdout_has(
        "left down: node01 with 1 change staged for the next boot (`run` at book.rhai:2)",
    );
    // Said once, in the list, not again as a reboot still needed.
    run.stdout_lacks("still need a reboot");
    let resumed = lab.cairn(&["resume"]);
    resumed.stdout_has("the run was left with node01 with 1 change staged for the next boot");
}

#[test]
fn a_run_that_leaves_a_reboot_pending_says_so() {
    let lab = Lab::with_book(
        r#"
        stage "stage a change" on all { run(["true"], #{ reboot_required: true }); }
        stage "apply it" on apply { reboot_if_pending(); }
        "#,
        &(inventory("node01", "clock=virtual")
            + "\n[hosts.node02]\naddress = \"sim:linux?clock=virtual\"\ngroups = [\"apply\"]\n"),
    );
    let run = lab.run_book(&[]).succeeds();
    run.stdout_has("still need a reboot: node01 (`run` at");
    assert_eq!(lab.sim_count("node01", &["reboot"]), 0);
    assert_eq!(lab.sim_count("node02", &["reboot"]), 1);
    let end = records(&lab.journal("node01"), "host_end")[0].clone();
    assert!(
        end["data"]["reboot_pending"]
            .as_str()
            .is_some_and(|r| r.contains("book.rhai:2")),
        "{end}"
    );
}

#[test]
fn max_fail_percent_stops_the_others_cleanly() {
    let lab = Lab::with_book(
        r#"
        stage "one" on all { if host().name <= "node02" { run(["false"]); } }
        stage "two" on all { run(["echo", "two"]); }
        "#,
        &inventory("node[01-08]", "clock=virtual"),
    );
    let run = lab.run_book(&["--max-fail-percent", "20"]).fails(1);
    run.stdout_has("2 of 8 hosts failed, more than --max-fail-percent 20");
    run.stdout_has("0 done, 2 failed, 6 stopped");
    let echoed: usize = (3..=8)
        .map(|n| lab.sim_count(&format!("node{n:02}"), &["echo", "two"]))
        .sum();
    assert_eq!(echoed, 0, "no host started stage two");
}
