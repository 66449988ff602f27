//! `cairn resume`: `--from-stage` by number or prefix, a prompt for unknown outcomes on a
//! terminal, and `--runbook` for a runbook that moved.

use std::time::Duration;

use cairn_tests::{Lab, binary};
use rexpect::session::spawn_command;

use crate::executor::inventory;

const STAGES: &str = r#"stage "install one" on all {
    run(["echo", "one"]);
}
stage "install two" on all {
    run(["echo", "two"]);
}
stage "tune" on all {
    run(["false"]);
}
"#;

fn lab(book: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", book);
    // Unfenced: a fenced host's record would settle the unknown outcome without asking.
    lab.write(
        "lab.toml",
        &inventory("node01", "clock=virtual&fence=false"),
    );
    lab
}

#[test]
fn from_stage_takes_the_number_shown_or_a_unique_prefix_and_lists_the_stages_otherwise() {
    let lab = lab(STAGES);
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    run.stdout_has("stage 3: tune");
    lab.write("book.rhai", &STAGES.replace("false", "true"));
    let before = lab.sim_commands("node01").len();
    for (given, wrong) in [
        ("install", "2 stages start with `install`"),
        ("tnue", "did you mean `tune`?"),
        ("7", "the runbook has 3 stage(s)"),
    ] {
        let refused = lab.cairn(&["resume", "--from-stage", given]);
        assert_eq!(refused.code, 2, "{given}: {}", refused.stderr);
        assert!(
            refused.stderr.contains(wrong),
            "{given}: {}",
            refused.stderr
        );
        // The stages, numbered, in the help (which miette may wrap anywhere).
        let flat = refused
            .stderr
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains("1 `install one`, 2 `install two`, 3 `tune`"),
            "{given}: {}",
            refused.stderr
        );
    }
    assert_eq!(lab.sim_commands("node01").len(), before, "nothing ran");
    lab.cairn(&["resume", "--from-stage", "install t"])
        .succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "two"]),
        2,
        "stage 2 ran again"
    );
    assert_eq!(lab.sim_count("node01", &["echo", "one"]), 1);
    let by_number = lab.cairn(&["resume", "--from-stage", "3"]);
    // The run is done: nothing to resume, and the answer says so.
    by_number.fails(2);
}

/// A run killed right before the outcome of its `echo` was written: the command ran, the
/// journal cannot tell.
fn crashed_with_an_unknown_outcome() -> Lab {
    let lab = lab(
        "stage \"s\" on all {\n    run([\"echo\", \"once\"]);\n    run([\"echo\", \"after\"]);\n}\n",
    );
    lab.cairn_with(
        &["run", "book.rhai", "-i", "lab.toml"],
        &[("CAIRN_FAULT_EXIT_AT_WRITE", "4:before")],
    )
    .fails(137);
    assert_eq!(lab.sim_count("node01", &["echo", "once"]), 1);
    lab
}

#[test]
fn resume_on_a_terminal_asks_about_each_unknown_outcome() {
    let lab = crashed_with_an_unknown_outcome();
    let mut command = std::process::Command::new(binary("cairn"));
    command
        .current_dir(lab.path())
        .env("TERM", "xterm")
        .env_remove("CAIRN_STATE_DIR")
        .arg("resume");
    let mut p = spawn_command(command, Some(20_000)).unwrap_or_else(|e| panic!("spawn: {e}"));
    p.exp_string("node01 #1 run echo once (book.rhai:2): did it run? [done/redo/abort]")
        .unwrap_or_else(|e| panic!("question: {e}"));
    std::thread::sleep(Duration::from_millis(300));
    p.send_line("maybe").unwrap_or_default();
    p.exp_string("answer `done` if it ran")
        .unwrap_or_else(|e| panic!("a wrong answer is explained: {e}"));
    p.exp_string("did it run?")
        .unwrap_or_else(|e| panic!("asked again: {e}"));
    std::thread::sleep(Duration::from_millis(300));
    p.send_line("done").unwrap_or_default();
    p.exp_string("1 done, 0 failed")
        .unwrap_or_else(|e| panic!("resumed: {e}"));
    p.exp_eof().unwrap_or_else(|e| panic!("end: {e}"));
    assert_eq!(
        lab.sim_count("node01", &["echo", "once"]),
        1,
        "done: not run again"
    );
    assert_eq!(lab.sim_count("node01", &["echo", "after"]), 1);
}

#[test]
fn resume_without_a_terminal_stops_and_names_the_assume_to_pass() {
    let lab = crashed_with_an_unknown_outcome();
    lab.assert_fails(&["resume"], 2, &["--assume done"]);
    assert_eq!(
        lab.sim_count("node01", &["echo", "after"]),
        0,
        "nothing ran"
    );
    lab.cairn(&["resume", "--assume", "redo"]).succeeds();
    assert_eq!(lab.sim_count("node01", &["echo", "once"]), 2);
}

#[test]
fn a_moved_runbook_is_accepted_when_its_content_is_the_same() {
    let lab = crashed_with_an_unknown_outcome();
    let text = std::fs::read_to_string(lab.path().join("book.rhai")).unwrap_or_default();
    std::fs::remove_file(lab.path().join("book.rhai")).unwrap_or_default();
    lab.assert_fails(&["resume", "--assume", "done"], 2, &["--runbook PATH"]);
    lab.write("moved/book.rhai", &text.replace("after", "later"));
    lab.assert_fails(
        &["resume", "--assume", "done", "--runbook", "moved/book.rhai"],
        2,
        &["is not the runbook run"],
    );
    lab.write("moved/book.rhai", &text);
    lab.cairn(&["resume", "--assume", "done", "--runbook", "moved/book.rhai"])
        .succeeds();
    assert_eq!(lab.sim_count("node01", &["echo", "after"]), 1);
    let id = lab.runs().pop().unwrap_or_default();
    let meta = std::fs::read_to_string(lab.path().join(format!(".cairn/runs/{id}/run.json")))
        .unwrap_or_default();
    assert!(meta.contains("moved/book.rhai"), "{meta}");
}

/// A replayed result of another shape than the builtin's (a journal written by another cairn,
/// or edited: here `esxcli::nic_list`'s array became a map) is refused naming the record; it
/// used to read as an empty list, so the runbook went on with "no NICs".
#[test]
fn a_replayed_result_of_another_shape_is_refused_naming_the_record() {
    let lab = Lab::new();
    lab.write("lab.toml", "[hosts.esx01]\naddress = \"sim:esxi7\"\n");
    lab.write(
        "book.rhai",
        "stage \"s\" on all {\n    let nics = esxcli::nic_list();\n    log(`nics: ${nics.len()}`);\n    run([\"false\"]);\n}\n",
    );
    let first = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    first.stdout_has("nics: 4");
    let (id, _) = crate::typed_results::edit_result(&lab, "esx01", 1, |result| {
        let nics = result.take();
        assert!(nics.is_array(), "{nics}");
        *result = serde_json::json!({ "nics": nics });
    });

    let resumed = lab.cairn(&["resume"]).fails(1);
    resumed.stdout_lacks("nics: 0");
    let journal = format!(".cairn/runs/{id}/esx01.jsonl line 3");
    resumed.stdout_has(&format!("the result of `esxcli::nic_list` (action 1) does not read as esxcli's NIC list: invalid type: map, expected a sequence (journal {journal})"));
}
