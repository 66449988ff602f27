//! The run store and journal trust: secrets reach no file, one driver per run, a lost or
//! mixed-up journal is never a fresh start, and `--assume` answers per host.

use std::path::{Path, PathBuf};
use std::time::Duration;

use cairn_tests::{Lab, files, records};

use crate::executor::{THREE_STAGES, inventory};

const SECRET: &str = "Tok-9f3Qz-s3cret";

const SECRET_BOOK: &str = r#"
param token = secret("none");
param mtu = 1500;
stage "one" on compute {
    log(`token is ${token}`);
    run(["echo", token]);
    run(["echo", "x" + token + "y"]);
}
stage "two" on compute {
    run(["false", token]);
}
"#;

/// A diagnostic's text on one line: miette wraps long messages.
fn flat(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o777)
}

#[test]
fn a_secret_param_reaches_no_file_and_no_output() {
    let lab = Lab::new();
    lab.write("book.rhai", SECRET_BOOK);
    lab.write("lab.toml", &inventory("node[01-02]", "clock=virtual"));
    let given = format!("token={SECRET}");
    let mut outputs = Vec::new();
    for json in [false, true] {
        let mut args = vec!["run", "book.rhai", "-i", "lab.toml", "--param", &given];
        if json {
            args.push("--json");
        }
        let run = lab.cairn(&args);
        assert_eq!(run.code, 1, "`false` fails: {}\n{}", run.stdout, run.stderr);
        run.stderr_has("<redacted>");
        outputs.push(run);
    }
    // Resuming needs the secret again, and replays what ran with it.
    let id = lab.runs().pop().unwrap_or_default();
    let without = lab.assert_fails(&["resume", &id], 2, &["give it again"]);
    let resumed = lab
        .cairn(&["resume", &id, "--param", &given, "--json"])
        .fails(1);
    assert!(
        !resumed.stderr.contains("no longer matches"),
        "replay compares redacted with redacted: {}",
        resumed.stderr
    );
    assert_eq!(
        lab.sim_count("node01", &["echo"]),
        4,
        "two runs echo twice each; the resume replays them"
    );
    outputs.push(without);
    outputs.push(resumed);
    for run in &outputs {
        assert!(!run.stdout.contains(SECRET), "stdout: {}", run.stdout);
        assert!(!run.stderr.contains(SECRET), "stderr: {}", run.stderr);
    }
    let state = lab.path().join(".cairn");
    let all = files(&state);
    assert!(all.len() >= 10, "{all:?}");
    for file in &all {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned();
        assert!(
            !text.contains(SECRET),
            "{} holds the secret",
            file.display()
        );
    }
    let journal = lab.journal("node01");
    assert_eq!(
        records(&journal, "header")[0]["data"]["params"]["token"],
        "<redacted>"
    );
    assert_eq!(
        records(&journal, "header")[0]["data"]["params"].get("mtu"),
        None
    );
    #[cfg(unix)]
    {
        for file in &all {
            let inside = file.strip_prefix(&state).unwrap_or(file);
            if inside.starts_with("runs") || inside.starts_with("sim") {
                assert_eq!(mode(file), 0o600, "{}", file.display());
            }
        }
        for dir in [state.join("runs").join(&id), state.join("sim/node01")] {
            assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        }
    }
}

/// A runbook whose run lasts a few real seconds: a real two-second reboot.
/// Two secrets where one holds the other: both must be replaced whole, whichever the runbook
/// declares first.
const NESTED_SECRETS_BOOK: &str = r#"
param user_pw = secret("none");
param admin_pw = secret("none");
stage "one" on compute {
    run(["echo", admin_pw]);
    log(`admin ${admin_pw} user ${user_pw}`);
    run(["echo", user_pw + "+" + admin_pw]);
    run(["false", admin_pw]);
}
"#;

#[test]
fn a_secret_that_holds_another_is_redacted_whole_everywhere() {
    let lab = Lab::new();
    lab.write("book.rhai", NESTED_SECRETS_BOOK);
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    // `Zq7pa` is inside `Zq7pa-ssword`: a redactor that replaced the short one first would
    // leave `<redacted>-ssword` behind.
    let run = lab.cairn(&[
        "run",
        "book.rhai",
        "-i",
        "lab.toml",
        "--param",
        "user_pw=Zq7pa",
        "--param",
        "admin_pw=Zq7pa-ssword",
        "-v",
    ]);
    assert_eq!(run.code, 1, "`false` fails: {}\n{}", run.stdout, run.stderr);
    run.stderr_has("<redacted>");
    let json = lab.cairn(&[
        "journal",
        "--json",
        &lab.runs().pop().unwrap_or_default(),
        "node01",
    ]);
    for (stream, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("journal --json", &json.stdout),
    ] {
        for leak in ["Zq7", "ssword"] {
            assert!(!text.contains(leak), "{stream} holds `{leak}`: {text}");
        }
    }
    let all = files(&lab.path().join(".cairn"));
    assert!(all.len() >= 3, "{all:?}");
    for file in &all {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned();
        for leak in ["Zq7", "ssword"] {
            assert!(!text.contains(leak), "{} holds `{leak}`", file.display());
        }
    }
    let journal = lab.journal("node01");
    let argv = records(&journal, "intent")
        .iter()
        .map(|r| r["data"]["args"]["argv"].clone())
        .collect::<Vec<_>>();
    assert!(
        argv.contains(&serde_json::json!(["echo", "<redacted>"])),
        "{argv:?}"
    );
    assert!(
        argv.contains(&serde_json::json!(["echo", "<redacted>+<redacted>"])),
        "{argv:?}"
    );
}

fn slow_lab() -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on compute {\n    run([\"echo\", \"once\"]);\n    reboot();\n}\n",
    );
    lab.write("lab.toml", &inventory("node01", "reboot_secs=3"));
    lab
}

fn wait_for_journal(lab: &Lab, host: &str) {
    for _ in 0..200 {
        if !records(&lab.journal(host), "intent").is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{host} never started");
}

#[test]
fn a_run_being_driven_refuses_a_second_driver_and_writes_nothing() {
    let lab = slow_lab();
    let mut first = lab
        .command(&["run", "book.rhai", "-i", "lab.toml"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    wait_for_journal(&lab, "node01");
    let id = lab.runs().pop().unwrap_or_default();
    let before = lab.journal("node01").len();
    for args in [vec!["resume", id.as_str()], vec!["resume"]] {
        let second = lab.cairn(&args);
        assert_eq!(
            second.code, 2,
            "{args:?}: {}\n{}",
            second.stdout, second.stderr
        );
        second.stderr_has(&format!("run {id} is being driven by pid {}", first.id()));
    }
    let status = first.wait().unwrap_or_else(|e| panic!("wait: {e}"));
    assert!(status.success());
    let journal = lab.journal("node01");
    assert!(journal.len() > before, "the first went on");
    assert!(
        records(&journal, "resume").is_empty(),
        "the second wrote nothing"
    );
    assert_eq!(lab.sim_count("node01", &["reboot"]), 1);
    assert_eq!(lab.sim_count("node01", &["echo", "once"]), 1);
    // Once the first has ended, the run can be resumed (it replays to the end).
    lab.cairn(&["resume", &id]).succeeds();
}

#[test]
fn two_runs_started_in_the_same_second_get_their_own_folders() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on compute {\n    run([\"echo\", \"a\"]);\n}\n",
    );
    // Two hosts, one a run: a run holds its hosts' leases, so two runs on one host would not
    // both start (tests/src/leases.rs).
    lab.write("lab.toml", &inventory("node[01-02]", "clock=virtual"));
    // Start both just after a second begins, so they start within it.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    std::thread::sleep(Duration::from_millis(
        u64::from(1000 - now.subsec_millis()) + 20,
    ));
    let spawn = |host: &str| {
        lab.command(&["run", "book.rhai", "-i", "lab.toml", "--limit", host])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn: {e}"))
    };
    let (mut a, mut b) = (spawn("node01"), spawn("node02"));
    assert!(a.wait().is_ok_and(|s| s.success()));
    assert!(b.wait().is_ok_and(|s| s.success()));
    let ids = lab.runs();
    assert_eq!(ids.len(), 2, "{ids:?}");
    for id in &ids {
        let dir = lab.path().join(".cairn/runs").join(id);
        let text = ["node01.jsonl", "node02.jsonl"]
            .iter()
            .filter_map(|file| std::fs::read_to_string(dir.join(file)).ok())
            .collect::<String>();
        assert_eq!(
            text.matches("\"type\":\"header\"").count(),
            1,
            "{id}: {text}"
        );
        assert_eq!(
            text.matches("\"type\":\"host_end\"").count(),
            1,
            "{id}: {text}"
        );
    }
}

fn journal_path(lab: &Lab, host: &str) -> PathBuf {
    let id = lab.runs().pop().unwrap_or_default();
    lab.path()
        .join(".cairn/runs")
        .join(id)
        .join(format!("{host}.jsonl"))
}

#[test]
fn a_lost_journal_stops_resume_until_the_host_is_restarted() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on compute {\n    run([\"echo\", \"once\"]);\n}\n",
    );
    lab.write("lab.toml", &inventory("node[01-04]", "clock=virtual"));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let write = |host: &str, text: &str| {
        std::fs::write(journal_path(&lab, host), text).unwrap_or_else(|e| panic!("{e}"));
    };
    std::fs::remove_file(journal_path(&lab, "node01")).unwrap_or_else(|e| panic!("{e}"));
    write("node02", "");
    let headerless: Vec<String> = std::fs::read_to_string(journal_path(&lab, "node03"))
        .unwrap_or_default()
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    write("node03", &headerless.concat());
    let refused = lab.cairn(&["resume"]).fails(2);
    for lost in [
        "node01 (missing)",
        "node02 (empty)",
        "node03 (no header record)",
    ] {
        assert!(
            flat(&refused.stderr).contains(lost),
            "{lost}: {}",
            refused.stderr
        );
    }
    refused.stderr_has("--restart-host");
    refused.stderr_lacks("node04");
    let partly = lab
        .cairn(&[
            "resume",
            "--restart-host",
            "node01",
            "--restart-host",
            "node02",
        ])
        .fails(2);
    assert!(
        flat(&partly.stderr).contains("node03 (no header record)"),
        "{}",
        partly.stderr
    );
    partly.stderr_lacks("node01 (missing)");
    lab.assert_fails(
        &["resume", "--restart-host", "node1"],
        2,
        &["did you mean `node01`"],
    );
    lab.assert_fails(
        &["resume", "--restart-host", "node04"],
        2,
        &["journal is intact"],
    );
    for host in ["node01", "node02", "node03", "node04"] {
        assert_eq!(
            lab.sim_count(host, &["echo", "once"]),
            1,
            "{host}: nothing ran"
        );
    }
    lab.cairn(&[
        "resume",
        "--restart-host",
        "node01",
        "--restart-host",
        "node02",
        "--restart-host",
        "node03",
    ])
    .succeeds();
    for host in ["node01", "node02", "node03"] {
        assert_eq!(
            lab.sim_count(host, &["echo", "once"]),
            2,
            "{host} ran again"
        );
        assert_eq!(records(&lab.journal(host), "header").len(), 1, "{host}");
    }
    assert_eq!(
        lab.sim_count("node04", &["echo", "once"]),
        1,
        "node04 replayed"
    );
    let kept_aside = std::fs::read_dir(journal_path(&lab, "node02").with_file_name(""))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".jsonl.lost-"))
        .count();
    assert_eq!(
        kept_aside, 2,
        "node02's and node03's damaged journals are kept aside"
    );
}

#[test]
fn records_out_of_order_are_an_error_with_their_line() {
    let lab = Lab::new();
    lab.write("book.rhai", THREE_STAGES);
    lab.write(
        "lab.toml",
        &inventory("node01", "reboot_secs=2&clock=virtual"),
    );
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let path = journal_path(&lab, "node01");
    let mut lines: Vec<String> = std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect();
    let is = |line: &str, kind: &str| {
        line.contains(&format!("\"type\":\"{kind}\"")) && line.contains("\"seq\":2")
    };
    let intent = lines
        .iter()
        .position(|l| is(l, "intent") && l.contains("\"reboot\""));
    let outcome = lines.iter().position(|l| is(l, "outcome"));
    let (Some(intent), Some(outcome)) = (intent, outcome) else {
        panic!("no reboot records: {lines:?}");
    };
    lines.swap(intent, outcome);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap_or_else(|e| panic!("{e}"));
    lab.assert_fails(
        &["resume"],
        2,
        &[
            &format!("line {} is out of order", intent + 1),
            "no intent before it",
        ],
    );
    assert_eq!(
        lab.sim_count("node01", &["reboot"]),
        2,
        "no reboot was sent again"
    );
    lab.cairn(&["journal", "node01"]).fails(2);
}

#[test]
fn an_unreadable_run_json_is_listed_and_skipped() {
    let lab = Lab::new();
    lab.write(
        "fails.rhai",
        "stage \"one\" on compute {\n    run([\"false\"]);\n}\n",
    );
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    lab.cairn(&["run", "fails.rhai", "-i", "lab.toml"]).fails(1);
    lab.cairn(&["run", "fails.rhai", "-i", "lab.toml"]).fails(1);
    let ids = lab.runs();
    let (older, newer) = (ids[0].clone(), ids[1].clone());
    let broken = lab.path().join(".cairn/runs").join(&newer).join("run.json");
    std::fs::write(&broken, "{ not json").unwrap_or_else(|e| panic!("{e}"));
    let runs = lab.cairn(&["runs"]).succeeds();
    runs.stdout_has(&format!("{older}  failed"));
    runs.stdout_has(&format!("{newer}  unreadable"));
    assert!(
        runs.stdout.contains("run.json"),
        "the reason: {}",
        runs.stdout
    );
    let resume = lab.cairn(&["resume"]).fails(1);
    let said = format!("{}{}", resume.stdout, resume.stderr);
    assert!(said.contains(&format!("run {newer} is skipped")), "{said}");
    assert!(said.contains(&format!("run {older}:")), "{said}");
}

/// A run on two hosts whose last action (a plain `run`, settled by asking) has an intent and
/// no outcome on both, as after a crash.
fn pending_on_both() -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on compute {\n    run([\"echo\", \"once\"]);\n}\n",
    );
    // Unfenced: a fenced host's record would settle the outcomes this removes from the journal
    // (tests/src/fencing.rs); these tests are of answering them by hand.
    lab.write(
        "lab.toml",
        &inventory("node[01-02]", "clock=virtual&fence=false"),
    );
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    for host in ["node01", "node02"] {
        let path = journal_path(&lab, host);
        let kept: String = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.contains("\"type\":\"outcome\"") && !l.contains("\"type\":\"host_end\""))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&path, kept).unwrap_or_else(|e| panic!("{e}"));
    }
    lab
}

#[test]
fn assume_answers_per_host() {
    let lab = pending_on_both();
    lab.assert_fails(&["resume"], 2, &["--assume HOST=done"]);
    let one = lab.assert_fails(&["resume", "--assume", "node01=done"], 2, &["node02"]);
    assert!(
        !one.stderr.contains("`node01`"),
        "node01 was answered: {}",
        one.stderr
    );
    assert!(
        records(&lab.journal("node01"), "decision").is_empty(),
        "nothing recorded"
    );
    lab.assert_fails(
        &["resume", "--assume", "nod01=done", "--assume", "redo"],
        2,
        &["did you mean `node01`"],
    );
    lab.assert_fails(
        &["resume", "--assume", "node01=maybe"],
        2,
        &["neither `done` nor `redo`"],
    );
    lab.cairn(&["resume", "--assume", "node01=done", "--assume", "redo"])
        .succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "once"]),
        1,
        "node01: done, not run"
    );
    assert_eq!(
        lab.sim_count("node02", &["echo", "once"]),
        2,
        "node02: run again"
    );
    let decision = |host| records(&lab.journal(host), "decision")[0]["data"]["assume"].clone();
    assert_eq!(decision("node01"), "done");
    assert_eq!(decision("node02"), "redo");
}

#[test]
fn journals_that_hold_only_headers_had_not_started_so_missing_ones_begin() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"one\" on compute {\n    run([\"echo\", \"once\"]);\n}\n",
    );
    lab.write("lab.toml", &inventory("node[01-03]", "clock=virtual"));
    // Killed right after the first journal's header: the other journals were never begun.
    let mut command = lab.command(&["run", "book.rhai", "-i", "lab.toml"]);
    command.env("CAIRN_FAULT_EXIT_AT_WRITE", "1:after");
    let killed = command
        .output()
        .unwrap_or_else(|e| panic!("cairn runs: {e}"));
    assert_eq!(killed.status.code(), Some(137));
    // Even where run.json says the journals were all begun (it is written just after), a run
    // whose journals hold nothing past their headers touched no host.
    let id = lab.runs().pop().unwrap_or_default();
    let meta = lab.path().join(".cairn/runs").join(&id).join("run.json");
    let text = std::fs::read_to_string(&meta).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("\"begun\": false"), "{text}");
    std::fs::write(&meta, text.replace("\"begun\": false", "\"begun\": true"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!journal_path(&lab, "node02").exists());
    lab.cairn(&["resume"]).succeeds();
    for host in ["node01", "node02", "node03"] {
        assert_eq!(lab.sim_count(host, &["echo", "once"]), 1, "{host}");
    }
    // Once a host has gone past its header, a journal that goes missing was lost.
    std::fs::remove_file(journal_path(&lab, "node02")).unwrap_or_else(|e| panic!("{e}"));
    let refused = lab.cairn(&["resume", &id]).fails(2);
    assert!(
        flat(&refused.stderr).contains("node02 (missing)"),
        "{}",
        refused.stderr
    );
}
