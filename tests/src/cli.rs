//! The command line: check, runs, journal, resume refusals, exit codes.

use cairn_tests::Lab;

use crate::executor::inventory;

#[test]
fn check_points_at_a_wrong_call() {
    let lab = Lab::new();
    lab.write("ok.rhai", r#"stage "s" on all { run(["true"]); }"#);
    lab.write(
        "bad.rhai",
        "stage \"s\" on all {\n    run();\n    nosuch::thing(1);\n}\n",
    );
    lab.cairn(&["check", "ok.rhai"]).succeeds();
    lab.assert_fails(
        &["check", "bad.rhai"],
        2,
        &[
            "`run` takes 1 or 2 argument(s), not 0",
            "unknown module `nosuch`",
            "bad.rhai:2:5",
        ],
    );
}

#[test]
fn a_syntax_error_points_at_its_line_and_exits_2() {
    let lab = Lab::new();
    lab.write("book.rhai", "stage \"s\" on all {\n    let x = ;\n}\n");
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    lab.assert_fails(&["run", "book.rhai", "-i", "lab.toml"], 2, &["book.rhai:2"]);
}

#[test]
fn an_edited_stage_makes_resume_refuse_before_running_anything() {
    let lab = Lab::new();
    let book = "stage \"one\" on all {\n    run([\"echo\", \"a\"]);\n}\nstage \"two\" on all {\n    run([\"false\"]);\n}\n";
    lab.write("book.rhai", book);
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    lab.write(
        "book.rhai",
        &book.replace("\"a\"", "\"b\"").replace("false", "true"),
    );
    let before = lab.sim_commands("node01").len();
    let resume = lab.assert_fails(
        &["resume"],
        2,
        &["stage `one`", "book.rhai:2", "node01.jsonl"],
    );
    assert_eq!(lab.sim_commands("node01").len(), before, "nothing ran");
    resume.stderr_has("cairn resume --from-stage \"one\"");
    lab.cairn(&["resume", "--from-stage", "one"]).succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "b"]),
        1,
        "the edited stage ran again"
    );
    assert_eq!(
        lab.sim_count("node01", &["true"]),
        1,
        "and the stage after it"
    );
}

#[test]
fn a_resume_with_another_param_that_diverges_refuses_before_running_anything() {
    let lab = Lab::new();
    let book = "param mtu = 1500;\nstage \"one\" on all {\n    run([\"echo\", `${mtu}`]);\n}\nstage \"two\" on all {\n    run([\"false\"]);\n}\n";
    lab.write("book.rhai", book);
    lab.write("lab.toml", &inventory("node[01-02]", "clock=virtual"));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    let before = lab.sim_commands("node01").len();
    // The recorded `echo 1500` is now `echo 9000`: found by the verify pass, as an edit is, not
    // host by host in the middle of the run.
    lab.assert_fails(
        &["resume", "--param", "mtu=9000"],
        2,
        &["nothing was run", "book.rhai:3"],
    );
    assert_eq!(lab.sim_commands("node01").len(), before, "nothing ran");
    // The same values replay as before.
    lab.cairn(&["resume", "--param", "mtu=1500"]).fails(1);
    assert_eq!(lab.sim_count("node01", &["echo", "1500"]), 1);
}

#[test]
fn a_failed_host_resumes_from_its_failure_after_the_fix() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on all {\n    run([\"echo\", \"a\"]);\n    run([\"hostname\"]);\n}\n",
    );
    lab.write(
        "lab.toml",
        &inventory("node01", "clock=virtual&fail_once=hostname"),
    );
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    let runs = lab.cairn(&["runs"]);
    runs.stdout_has("failed");
    lab.cairn(&["resume"]).succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "a"]),
        1,
        "the finished action was replayed"
    );
    assert_eq!(
        lab.sim_count("node01", &["hostname"]),
        2,
        "the failed one ran again"
    );
}

#[test]
fn journal_shows_a_timeline_and_warns_about_a_torn_line() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on all { run([\"echo\", \"a\"]); }\n",
    );
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let timeline = lab.cairn(&["journal", "node01"]);
    timeline.stdout_has("stage 1 `one`");
    timeline.stdout_has("run {\"argv\":[\"echo\",\"a\"]}");
    let id = lab.runs().pop().unwrap_or_default();
    let path = lab
        .path()
        .join(".cairn/runs")
        .join(&id)
        .join("node01.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, format!("{text}{{\"type\":\"outc")).unwrap_or_default();
    let torn = lab.cairn(&["journal", &id, "node01", "--json"]).succeeds();
    torn.stderr_has("is torn");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "garbage";
    std::fs::write(&path, lines.join("\n") + "\n").unwrap_or_default();
    lab.assert_fails(&["journal", &id, "node01"], 2, &["line 2"]);
}

#[test]
fn json_prints_one_event_per_line() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on all { run([\"echo\", \"a\"]); }\n",
    );
    lab.write("lab.toml", &inventory("node[01-02]", "clock=virtual"));
    let run = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml", "--json"])
        .succeeds();
    let events: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    assert!(
        events.iter().all(|e| e["event"].is_string()),
        "{}",
        run.stdout
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "host_finished")
            .count(),
        2
    );
    assert_eq!(
        events.last().map(|e| e["event"].clone()),
        Some("run_finished".into())
    );
    let finished = events.last().cloned().unwrap_or_default();
    assert_eq!(
        (finished["exit"].clone(), finished["exit_code"].clone()),
        ("succeeded".into(), 0.into()),
        "{finished}"
    );
}

#[test]
fn a_closed_output_pipe_does_not_stop_a_run() {
    use std::io::BufRead as _;
    let lab = Lab::shipped();
    let mut child = lab
        .command(&[
            "run",
            "runbooks/vsphere7-ib-roce-passthrough.rhai",
            "-i",
            "runbooks/labs/vsphere7-4node.toml",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    // `cairn run ... | head -1`: the reader goes away after the first line.
    let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
    let mut first = String::new();
    let _ = std::io::BufReader::new(stdout).read_line(&mut first);
    assert!(first.starts_with("▸ stage 1"), "{first}");
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // The run went on to its end: its journal says so.
    let journal = lab.journal("controller");
    let end = cairn_tests::records(&journal, "host_end");
    assert_eq!(end.len(), 1, "the controller finished");
}
