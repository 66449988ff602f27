//! `retry(times, delay_secs, || ...)`: attempts, waits on the host's clock, the error after the
//! last attempt, and a resume that goes on counting.

use cairn_tests::{Lab, records};

use crate::crash::crashed_at;
use crate::executor::inventory;

/// Fails twice (`false`), then succeeds: `n` counts attempts in the script.
const FLAKY: &str = r#"stage "s" on all {
    let n = 0;
    retry(5, 30, || {
        n += 1;
        if n < 3 { run(["false"]) } else { run(["echo", "up"]) }
    });
    log(`took ${n} attempts`);
}
"#;

fn lab(book: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", book);
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    lab
}

fn retry_waits(lab: &Lab) -> usize {
    let journal = lab.journal("node01");
    records(&journal, "intent")
        .iter()
        .filter(|i| i["data"]["builtin"] == "retry")
        .count()
}

#[test]
fn retry_runs_the_closure_until_it_succeeds_waiting_on_the_host_clock() {
    let lab = lab(FLAKY);
    let run = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    assert_eq!(lab.sim_count("node01", &["false"]), 2);
    assert_eq!(lab.sim_count("node01", &["echo", "up"]), 1);
    assert_eq!(
        retry_waits(&lab),
        2,
        "one journaled wait after each failure"
    );
    run.stdout_has("took 3 attempts");
    // Two waits of 30 s on the virtual clock: the simulated host's time moved a minute.
    let state = lab.sim_state("node01");
    let clock = state["clock_millis"].as_u64().unwrap_or(0);
    let booted = state["boots"][0]["started_millis"]
        .as_u64()
        .unwrap_or(u64::MAX);
    assert!(
        clock.saturating_sub(booted) >= 60_000,
        "virtual clock {clock} ms, booted at {booted}"
    );
}

#[test]
fn the_error_after_the_last_attempt_says_how_many_were_tried() {
    let lab = lab("stage \"s\" on all {\n    retry(3, 1, || run([\"false\"]));\n}\n");
    lab.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml"],
        1,
        &["retry: all 3 attempt(s) failed, 1 s apart; the last: `false`"],
    );
    assert_eq!(lab.sim_count("node01", &["false"]), 3);
    let zero = self::lab("stage \"s\" on all {\n    retry(0, 1, || run([\"true\"]));\n}\n");
    zero.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml"],
        2,
        &["at least 1 attempt"],
    );
}

#[test]
fn a_runbook_error_in_the_closure_is_not_retried() {
    let lab = lab(
        "stage \"s\" on all {\n    retry(4, 1, || run([\"true\"], #{ alow_fail: true }));\n}\n",
    );
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(2);
    assert_eq!(retry_waits(&lab), 0, "{}", run.stderr);
}

#[test]
fn a_resume_after_a_crash_goes_on_counting_attempts() {
    for k in 1..=14 {
        let lab = lab(FLAKY);
        let fault = format!("{k}:after");
        if !crashed_at(&lab, &["run", "book.rhai", "-i", "lab.toml"], &fault) {
            break;
        }
        // An attempt whose failure is the journal's last record may have been the host's
        // end, so it runs again; every failure the run went on past is replayed as counted.
        let journal = lab.journal("node01");
        if journal.iter().any(|r| r["type"] == "host_end") {
            // Crashed after the host's last record: nothing is left to resume.
            break;
        }
        let last_is_failure = journal
            .iter()
            .rev()
            .find(|r| r["type"] == "intent" || r["type"] == "outcome")
            .is_some_and(|r| r["type"] == "outcome" && r["data"]["ok"] == false);
        let resumed = lab.cairn(&["resume", "--assume", "redo"]);
        assert_eq!(
            resumed.code, 0,
            "{fault}: {}\n{}",
            resumed.stdout, resumed.stderr
        );
        assert_eq!(
            lab.sim_count("node01", &["false"]),
            2 + usize::from(last_is_failure),
            "{fault}"
        );
        assert_eq!(lab.sim_count("node01", &["echo", "up"]), 1, "{fault}");
    }
}
