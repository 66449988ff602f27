//! The small refusals: each wrong input says what is wrong and what is there, and runs nothing.

use std::time::{Duration, Instant};

use cairn_tests::{Lab, records};

use crate::hangs::within_after;

/// One simulated host and a one-stage runbook.
fn lab() -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"a\" on all { run([\"echo\", \"hi\"]); }\n",
    );
    lab.write("lab.toml", "[hosts.node01]\naddress = \"sim:linux\"\n");
    lab
}

/// A diagnostic's text with miette's line wrapping undone.
pub(crate) fn unwrapped(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn forks_zero_is_refused() {
    let lab = lab();
    lab.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml", "--forks", "0"],
        2,
        &["invalid value '0' for '--forks"],
    );
    assert!(lab.runs().is_empty(), "nothing ran");
}

#[test]
fn an_unknown_run_id_lists_the_runs_for_resume_and_journal() {
    let lab = lab();
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let id = lab.runs().pop().unwrap_or_default();
    for args in [&["resume", "2099"][..], &["journal", "2099", "node01"]] {
        let run = lab.cairn(args);
        assert_eq!(run.code, 2, "{args:?}");
        run.stderr_has("no run `2099`");
        run.stderr_has(&format!("the runs: {id}"));
        run.stderr_lacks("entity not found");
    }
    // One character off: the id it was meant to be.
    let typo = format!("{}x", &id[..id.len() - 1]);
    let run = lab.cairn(&["resume", &typo]);
    run.stderr_has(&format!("did you mean `{id}`?"));
}

#[test]
fn a_host_without_a_journal_lists_the_runs_hosts() {
    let lab = lab();
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    lab.assert_fails(
        &["journal", "node99"],
        2,
        &[
            "has no journal for `node99`",
            "did you mean `node01`?",
            "its hosts with a journal: node01",
        ],
    );
}

#[test]
fn a_mistyped_runbook_path_gets_the_nearest_runbook() {
    let lab = lab();
    for args in [
        &["run", "bok.rhai", "-i", "lab.toml"][..],
        &["check", "bok.rhai"],
    ] {
        let run = lab.cairn(args);
        assert_eq!(run.code, 2, "{args:?}");
        run.stderr_has("did you mean `book.rhai`?");
    }
}

#[test]
fn a_missing_numbered_host_in_limit_names_the_hosts_like_it() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"a\" on all { run([\"echo\", \"hi\"]); }\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.\"esx[01-04]\"]\naddress = \"sim:esxi7\"\ngroups = [\"esxi\"]\n",
    );
    let run = lab.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml", "--limit", "esx5"],
        2,
        &["the hosts named `esx...`: esx[01-04]"],
    );
    run.stderr_lacks("did you mean `esxi`");
}

#[test]
fn a_simulated_host_made_with_another_model_is_refused_when_the_inventory_is_read() {
    let lab = lab();
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    lab.write("lab.toml", "[hosts.node01]\naddress = \"sim:esxi7\"\n");
    let runs = lab.runs().len();
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(2);
    assert!(
        unwrapped(&run.stderr).contains("was created with model `linux`, not `esxi7`"),
        "{}",
        run.stderr
    );
    run.stderr_has("sim/node01");
    assert_eq!(lab.runs().len(), runs, "no run was created");
    lab.cairn(&["hosts", "-i", "lab.toml"]).fails(2);
}

#[test]
fn a_simulated_host_made_from_another_labs_options_is_refused_when_the_inventory_is_read() {
    let lab = lab();
    let inventory = |options: &str| format!("[hosts.node01]\naddress = \"sim:rhel8?{options}\"\n");
    lab.write("lab.toml", &inventory("rate=100"));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let runs = lab.runs().len();
    // Another lab's node01: a 200 Gb/s adapter, which the stored host does not have.
    lab.write("lab.toml", &inventory("rate=200"));
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(2);
    let said = unwrapped(&run.stderr);
    assert!(said.contains("cairn::runtime::sim_made_from"), "{said}");
    assert!(said.contains("`rate=100` there, `rate=200` here"), "{said}");
    run.stderr_has("sim/node01");
    assert_eq!(lab.runs().len(), runs, "no run was created");
    lab.write("lab.toml", "[hosts.node01]\naddress = \"sim:rhel8\"\n");
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(2);
    let said = unwrapped(&run.stderr);
    assert!(said.contains("`rate=100` there, no `rate` here"), "{said}");
    // A fault injected between two runs of one lab is not the host's making.
    lab.write(
        "lab.toml",
        &inventory("rate=100&fault_ignore_staged_ofed=true"),
    );
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
}

#[test]
fn a_syntax_error_past_column_65535_is_shown_at_its_real_line_and_column() {
    let lab = lab();
    let line = format!("{}@", " ".repeat(70_014));
    lab.write("long.rhai", &format!("stage \"s\" on all {{\n{line}\n}}\n"));
    for args in [
        &["check", "long.rhai"][..],
        &["run", "long.rhai", "-i", "lab.toml"],
    ] {
        let run = lab.cairn(args);
        assert_eq!(run.code, 2, "{args:?}");
        run.stderr_has("long.rhai:2:70015");
        run.stderr_lacks(":17:");
        assert!(
            run.stderr.lines().all(|l| l.len() < 8192),
            "a short window is drawn"
        );
    }
}

#[test]
fn a_nul_in_a_var_on_the_local_transport_says_why_the_command_cannot_start() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"a\" on all { run([\"echo\", host().vars.v]); }\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.me]\naddress = \"local\"\nvars = { v = \"a\\u0000b\" }\n",
    );
    lab.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml"],
        1,
        &["argument 1 holds a NUL byte", "`echo a\\0b`"],
    );
}

#[test]
fn cairn_runs_shows_a_stopped_driver_with_its_pid() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"a\" on all { run([\"sleep\", \"2\"]); }\n",
    );
    lab.write("lab.toml", "[hosts.node01]\naddress = \"sim:linux\"\n");
    let mut listed = String::new();
    within_after(
        lab.command(&["run", "book.rhai", "-i", "lab.toml"]),
        Duration::from_secs(30),
        "a stopped driver",
        |pid| {
            let deadline = Instant::now() + Duration::from_secs(20);
            while records(&lab.journal("node01"), "intent").is_empty() {
                assert!(Instant::now() < deadline, "the host never started");
                std::thread::sleep(Duration::from_millis(20));
            }
            let running = lab.cairn(&["runs"]);
            assert!(
                running.stdout.contains("running ")
                    && running.stdout.contains(&format!("driven by pid {pid}")),
                "{}",
                running.stdout
            );
            let signal = |name: &str| {
                std::process::Command::new("kill")
                    .args([name, &pid.to_string()])
                    .status()
                    .is_ok_and(|s| s.success())
            };
            assert!(signal("-STOP"));
            listed = lab.cairn(&["runs"]).stdout;
            let json = lab.cairn(&["runs", "--json"]).stdout;
            assert!(signal("-CONT"));
            assert!(
                json.contains(&format!("\"driver_pid\":\"{pid}\"")),
                "{json}"
            );
            assert!(json.contains("\"state\":\"stopped\""), "{json}");
        },
    )
    .succeeds();
    assert!(listed.contains("stopped "), "{listed}");
    assert!(listed.contains("driver pid "), "{listed}");
    assert!(listed.contains("is stopped: `kill -CONT "), "{listed}");
    let done = lab.cairn(&["runs"]);
    done.stdout_has("done ");
    done.stdout_lacks("pid");
}
