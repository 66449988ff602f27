//! What a run prints: `--json` events against docs/events.schema.json, nothing cut, grouped
//! failures, the recap, check mode, `-q`/`-v`/`-vv`, and the status area on a terminal.

use std::process::Command;

use cairn_tests::{Lab, binary, run_book_args};
use serde_json::Value;

use crate::executor::inventory;

const WHOLE_GUIDE: [&str; 5] = [
    "run",
    "runbooks/vsphere7-ib-roce-passthrough.rhai",
    "-i",
    "runbooks/labs/vsphere7-4node.toml",
    "--json",
];

/// Two hosts succeed; the 22 others fail on one line; the two left reboot.
const MANY_FAIL: &str = "stage \"one\" on compute {
    run([\"echo\", \"hello\"]);
    run([\"true\"], #{ read_only: true });
    if host().name > \"node02\" { run([\"false\"]); }
}
stage \"two\" on compute { reboot(); }
";

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn schema() -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/events.schema.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let schema: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn assert_valid(validator: &jsonschema::Validator, events: &[Value]) {
    for event in events {
        let errors: Vec<String> = validator
            .iter_errors(event)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{event}\n{}", errors.join("\n"));
    }
}

fn many_fail_lab() -> Lab {
    Lab::with_book(
        MANY_FAIL,
        &inventory("node[01-24]", "reboot_secs=2&clock=virtual"),
    )
}

#[test]
fn every_json_event_of_the_whole_guide_matches_the_schema() {
    let lab = Lab::shipped();
    let run = lab.cairn(&WHOLE_GUIDE).succeeds();
    let events = events(&run.stdout);
    assert_valid(&schema(), &events);
    let kind = |name: &str| events.iter().filter(|e| e["event"] == name).count();
    assert_eq!(kind("run_started"), 1);
    assert_eq!(
        events.first().map(|e| e["event"].clone()),
        Some("run_started".into())
    );
    assert_eq!(
        events.last().map(|e| e["event"].clone()),
        Some("run_finished".into())
    );
    assert_eq!(events[0]["schema"], 1);
    assert_eq!(events[0]["check"], false);
    assert_eq!(kind("action_started"), kind("action_finished"));
    assert!(kind("command") > 0 && kind("rebooting") >= 12 && kind("stage_finished") > 0);
    // The 9 hosts, and the controller, which runs the validations.
    assert_eq!(kind("host_finished"), 10, "{}", run.stdout);
    let finished = events.last().cloned().unwrap_or_default();
    let recap = finished["recap"].as_array().cloned().unwrap_or_default();
    assert_eq!(recap.len(), 10, "{finished}");
    let esx01 = recap.iter().find(|l| l["host"] == "esx01").cloned();
    assert_eq!(esx01.map(|l| l["rebooted"].clone()), Some(3.into()));
    // Every action names where it is in the runbook.
    for action in events.iter().filter(|e| e["event"] == "action_finished") {
        assert!(action["seq"].as_u64() > Some(0), "{action}");
        assert!(action["line"].as_u64() > Some(0), "{action}");
        assert!(
            action["started_at"].as_u64() <= action["at"].as_u64(),
            "{action}"
        );
    }
}

#[test]
fn a_100_kb_command_output_arrives_whole() {
    let lab = Lab::with_book(
        "stage \"big\" on compute {\n    let s = \"\";\n    for i in 0..10240 { s += \"0123456789\"; }\n    run([\"echo\", s]);\n}\n",
        &inventory("node01", "clock=virtual"),
    );
    let run = lab.run_book(&["--json"]).succeeds();
    let events = events(&run.stdout);
    assert_valid(&schema(), &events);
    let finished = events
        .iter()
        .find(|e| e["event"] == "action_finished")
        .cloned()
        .unwrap_or_default();
    let whole = "0123456789".repeat(10240);
    assert_eq!(finished["result"]["stdout"], format!("{whole}\n"));
    assert_eq!(finished["arguments"]["argv"][1], whole.as_str());
    assert_eq!(finished["summary"], format!("run echo {whole}"));
    assert!(!run.stdout.contains('…'));
    // The journal and the run list follow the same conventions: whole, one object a line.
    let journal = lab.cairn(&["journal", "node01", "--json"]).succeeds();
    let records = self::events(&journal.stdout);
    assert!(
        records
            .iter()
            .any(|r| r["data"]["result"]["stdout"] == format!("{whole}\n")),
        "{}",
        journal.stdout.len()
    );
    let runs = lab.cairn(&["runs", "--json"]).succeeds();
    let listed = self::events(&runs.stdout);
    assert_eq!(listed.len(), 1, "{}", runs.stdout);
    assert_eq!(listed[0]["schema"], 1);
    assert_eq!(listed[0]["state"], "done");
    assert_eq!(listed[0]["run_id"], events[0]["run_id"]);
    assert_eq!(listed[0]["hosts"], serde_json::json!(["node01"]));
    assert!(listed[0]["at"].as_u64() <= events[0]["at"].as_u64());
}

#[test]
fn failures_on_one_line_are_printed_once_with_their_hosts_and_every_host_has_a_recap_line() {
    let lab = many_fail_lab();
    let run = lab.run_book(&[]).fails(1);
    assert_eq!(
        run.stderr
            .matches("22 hosts: node[03-24]: `false` exited with 1")
            .count(),
        1,
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("failed here").count(),
        1,
        "{}",
        run.stderr
    );
    let recap: Vec<&str> = run.stdout.lines().filter(|l| l.contains(" ok=")).collect();
    assert_eq!(recap.len(), 24, "{}", run.stdout);
    let node01 = recap
        .iter()
        .find(|l| l.trim_start().starts_with("node01"))
        .copied()
        .unwrap_or_default();
    let words: Vec<&str> = node01.split_whitespace().collect();
    assert_eq!(
        &words[1..5],
        ["ok=3", "changed=2", "failed=0", "rebooted=1"],
        "{node01}"
    );
    let node03 = recap
        .iter()
        .find(|l| l.trim_start().starts_with("node03"))
        .copied()
        .unwrap_or_default();
    assert!(
        node03.contains("failed=1") && node03.contains("rebooted=0"),
        "{node03}"
    );
    run.stdout_has("  22 hosts: node[03-24]  `false` exited with 1");
    let last = run.stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(": 2 done, 22 failed, 0 stopped"), "{last}");
}

#[test]
fn hosts_stopped_by_max_fail_percent_are_one_line() {
    let lab = Lab::with_book(
        "stage \"one\" on compute {\n    if host().name == \"node01\" { run([\"false\"]); }\n}\nstage \"two\" on compute { run([\"echo\", \"b\"]); }\n",
        &inventory("node[01-08]", "clock=virtual"),
    );
    let run = lab.run_book(&["--max-fail-percent", "0"]).fails(1);
    let stopped: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("stopped before they finished"))
        .collect();
    assert_eq!(
        stopped,
        ["  stopped before they finished: 7 hosts: node[02-08]"],
        "{}",
        run.stdout
    );
}

#[test]
fn check_mode_says_nothing_was_changed_and_is_no_recorded_run() {
    let lab = many_fail_lab();
    let run = lab.run_book(&["--check"]);
    let last = run.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("check: ") && last.ends_with("(check mode: nothing was changed)"),
        "{}",
        run.stdout
    );
    run.stdout_lacks("run 20");
    run.stdout_has("recap (check mode: nothing was changed):");
    assert!(lab.runs().is_empty());
    let json = lab.run_book(&["--check", "--json"]);
    let events = events(&json.stdout);
    assert_valid(&schema(), &events);
    assert_eq!(events[0]["check"], true);
    assert_eq!(events.last().map(|e| e["check"].clone()), Some(true.into()));
}

#[test]
fn quiet_prints_changes_failures_and_the_recap_and_verbose_adds_commands_and_output() {
    let lab = many_fail_lab();
    let quiet = lab.run_book(&["-q"]);
    let normal = lab.run_book(&[]);
    let verbose = lab.run_book(&["-v"]);
    let all = lab.run_book(&["-vv"]);
    for run in [&quiet, &normal, &verbose, &all] {
        assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
        assert_eq!(
            run.stdout.lines().filter(|l| l.contains(" ok=")).count(),
            24
        );
    }
    // `run true` is a read-only query: ok, unchanged, so -q leaves it out.
    quiet.stdout_lacks("run true");
    quiet.stdout_lacks("▸ stage");
    assert_eq!(quiet.stdout.matches("changed  run echo hello").count(), 24);
    assert_eq!(quiet.stdout.matches("failed   run false").count(), 22);
    assert_eq!(normal.stdout.matches("ok       run true").count(), 24);
    normal.stdout_lacks("$ echo hello");
    assert_eq!(
        verbose.stdout.matches("$ echo hello").count(),
        24,
        "{}",
        verbose.stdout
    );
    assert_eq!(verbose.stdout.matches("$ false  (exit 1)").count(), 22);
    // -v shows the output of failed actions only; -vv all of it.
    verbose.stdout_lacks("│ hello");
    assert_eq!(all.stdout.matches("│ hello").count(), 24, "{}", all.stdout);
    assert!(!all.stdout.contains('\x1b'), "no colour into a pipe");
}

/// `cairn ARGS` on a pseudo-terminal `columns` wide; everything it wrote.
fn on_a_terminal(lab: &Lab, columns: u16, env: &[(&str, &str)], args: &[&str]) -> String {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("stty cols {columns} rows 30; exec \"$0\" \"$@\""))
        .arg(binary("cairn"))
        .args(args)
        .current_dir(lab.path())
        .env_remove("CAIRN_STATE_DIR")
        .env_remove("NO_COLOR");
    for (key, value) in env {
        command.env(key, value);
    }
    let mut session = rexpect::session::spawn_command(command, Some(60_000))
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let raw = session
        .exp_eof()
        .unwrap_or_else(|e| panic!("cairn on a terminal: {e}"));
    // rexpect hands each byte over as one char: put the UTF-8 back together.
    let bytes: Vec<u8> = raw
        .chars()
        .map(|c| u8::try_from(c).unwrap_or(b'?'))
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What a terminal would show of each line: escape sequences and carriage-return redraws off.
fn visible(line: &str) -> String {
    let last = line
        .rsplit('\r')
        .find(|part| !part.is_empty())
        .unwrap_or_default();
    let mut out = String::new();
    let mut chars = last.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn on_a_terminal_a_status_area_colour_and_lines_cut_to_its_width_and_piped_plain_whole_lines() {
    let lab = Lab::new();
    let long = "x".repeat(150);
    lab.write(
        "book.rhai",
        &format!(
            "stage \"one\" on compute {{\n    run([\"echo\", \"{long}\"]);\n    reboot();\n}}\n"
        ),
    );
    // Real one-second reboots, so the status area is drawn while the hosts are down.
    lab.write("lab.toml", &inventory("node[01-03]", "reboot_secs=1"));
    let args = ["run", "book.rhai", "-i", "lab.toml"];
    let shown = on_a_terminal(&lab, 100, &[], &args);
    assert!(shown.contains("waiting for node0"), "{shown:?}");
    assert!(shown.contains("done · "), "{shown:?}");
    assert!(shown.contains("\x1b[33mchanged\x1b[0m"), "{shown:?}");
    for line in shown.lines() {
        let seen = visible(line);
        assert!(
            seen.chars().count() <= 100,
            "{} columns: {seen}",
            seen.chars().count()
        );
    }
    assert!(
        shown.lines().any(
            |l| visible(l).starts_with("  node01         changed  run echo xxx")
                && visible(l).ends_with('…')
        ),
        "{shown:?}"
    );

    let plain = on_a_terminal(&lab, 100, &[("NO_COLOR", "1")], &args);
    assert!(
        !plain.contains("\x1b[33m") && !plain.contains("\x1b[32m"),
        "{plain:?}"
    );
    let forced = on_a_terminal(
        &lab,
        100,
        &[("NO_COLOR", "1")],
        &["run", "book.rhai", "-i", "lab.toml", "--color", "always"],
    );
    assert!(forced.contains("\x1b[33mchanged\x1b[0m"), "{forced:?}");

    let piped = lab.cairn(&args).succeeds();
    assert_eq!(
        piped.stdout.matches(&format!("run echo {long} (")).count(),
        3,
        "{}",
        piped.stdout
    );
    assert!(
        !piped.stdout.contains("running ·") && !piped.stdout.contains('\x1b'),
        "{}",
        piped.stdout
    );
}

#[test]
fn a_divergence_shared_by_twenty_hosts_is_one_report() {
    let book = "param mtu = 1500;\nstage \"one\" on all {\n    run([\"echo\", `${mtu}`]);\n}\nstage \"two\" on all {\n    run([\"false\"]);\n}\n";
    let lab = Lab::with_book(book, &inventory("node[01-20]", "clock=virtual"));
    lab.run_book(&[]).fails(1);
    let resume = lab.cairn(&["resume", "--param", "mtu=9000"]).fails(2);
    let text = &resume.stderr;
    assert_eq!(
        text.matches("the runbook changed at action 1").count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("20 hosts: node[01-20]: the runbook changed"),
        "{text}"
    );
    assert_eq!(text.matches("recorded here").count(), 1, "{text}");
    assert!(text.contains("likewise for the"), "{text}");
    assert!(
        text.contains("the journal of 20 host(s); nothing was run"),
        "{text}"
    );
}

#[test]
fn after_a_first_ctrl_c_the_status_area_counts_the_actions_the_stop_waits_for() {
    // A simulated `sleep` is one action that runs to its end, as a real command would.
    let lab = Lab::with_book(
        "stage \"one\" on compute {\n    run([\"sleep\", \"4\"]);\n}\nstage \"two\" on compute {\n    run([\"echo\", \"never\"]);\n}\n",
        &inventory("node[01-02]", "reboot_secs=1"),
    );
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("stty cols 200 rows 30; exec \"$0\" \"$@\"")
        .arg(binary("cairn"))
        .args(run_book_args(&["--color", "never"]))
        .current_dir(lab.path())
        .env_remove("CAIRN_STATE_DIR");
    let mut session = rexpect::session::spawn_command(command, Some(30_000))
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    session
        .exp_regex("node0[12]: run sleep 4")
        .unwrap_or_else(|e| panic!("no running action in the status area: {e}"));
    session
        .send_control('c')
        .unwrap_or_else(|e| panic!("Ctrl-C: {e}"));
    let stopping = session
        .exp_string("stopping: waiting for 2 actions")
        .unwrap_or_else(|e| panic!("no stopping line: {e}"));
    let rest = session
        .exp_eof()
        .unwrap_or_else(|e| panic!("cairn on a terminal: {e}"));
    assert!(!rest.contains("never"), "{stopping}{rest}");
    assert!(rest.contains("2 stopped"), "{rest}");
}
