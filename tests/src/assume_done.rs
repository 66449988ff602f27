//! `cairn resume --assume done`: an answer is written to every journal or to none, and `done`
//! never hands the runbook a result the host did not give.

use std::path::PathBuf;

use cairn_tests::{Immutable, Lab, records};

/// The newest run's folder.
fn run_dir(lab: &Lab) -> PathBuf {
    let id = lab.runs().pop().unwrap_or_else(|| panic!("no run"));
    lab.path().join(".cairn/runs").join(id)
}

/// Cuts `host`'s journal right after its first intent (or its last): the action started and
/// the controller died before its outcome, as a SIGKILL leaves it.
fn cut_after_intent(lab: &Lab, host: &str, last: bool) {
    let path = run_dir(lab).join(format!("{host}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<&str> = text.lines().collect();
    let intents: Vec<usize> = (0..lines.len())
        .filter(|&n| lines[n].contains("\"type\":\"intent\""))
        .collect();
    let end = if last {
        intents.last()
    } else {
        intents.first()
    };
    let end = *end.unwrap_or_else(|| panic!("{host}: no intent"));
    std::fs::write(&path, lines[..=end].join("\n") + "\n").unwrap_or_else(|e| panic!("{e}"));
}

/// A lab whose two hosts ran one `run(["echo", "a"])` to its end.
fn echo_on_two_hosts_run() -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"s\" on all { run([\"echo\", \"a\"]); }\n",
    );
    lab.write(
        "lab.toml",
        &crate::executor::inventory("node[01-02]", "clock=virtual"),
    );
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    lab
}

/// A lab whose one host ran `QUERY_THEN_SET` to its end.
fn query_then_set_run() -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", QUERY_THEN_SET);
    lab.write(
        "lab.toml",
        &crate::executor::inventory("node01", "clock=virtual"),
    );
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    lab
}

#[test]
fn a_resume_that_cannot_write_one_journal_writes_its_answer_to_none() {
    let lab = echo_on_two_hosts_run();
    for host in ["node01", "node02"] {
        cut_after_intent(&lab, host, false);
        fence_saw(&lab, host, false, FenceSaw::Done("a\n"));
    }
    let first = run_dir(&lab).join("node01.jsonl");
    let before = std::fs::read(&first).unwrap_or_else(|e| panic!("{e}"));
    let locked = match Immutable::set(&run_dir(&lab).join("node02.jsonl")) {
        Ok(locked) => locked,
        Err(why) => {
            eprintln!("skipped: cannot make a journal immutable ({why})");
            return;
        }
    };
    let refused = lab.cairn(&["resume", "--assume", "done"]);
    assert_ne!(refused.code, 0, "{}", refused.stdout);
    assert!(
        refused.stderr.contains("node02.jsonl"),
        "names the journal it cannot write\n{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read(&first).unwrap_or_else(|e| panic!("{e}")),
        before,
        "node01's journal is unchanged"
    );
    drop(locked);
    lab.cairn(&["resume", "--assume", "done"]).succeeds();
    for host in ["node01", "node02"] {
        let journal = lab.journal(host);
        assert_eq!(records(&journal, "decision").len(), 1, "{host}: one answer");
        assert_eq!(lab.sim_count(host, &["echo", "a"]), 1, "{host}: ran once");
    }
}

/// The workload's shape: a query whose output decides whether a set runs.
const QUERY_THEN_SET: &str = "stage \"s\" on all {\n\
    let q = run([\"echo\", \"LINK_TYPE_P1 ETH(2)\"]).stdout;\n\
    if !q.contains(\"ETH(2)\") { run([\"echo\", \"set\", \"LINK_TYPE_P1=2\"]); }\n\
    run([\"echo\", \"last\"]);\n\
}\n";

#[test]
fn done_for_an_interrupted_action_whose_output_the_runbook_reads_is_refused_and_redo_reruns_it() {
    let lab = query_then_set_run();
    assert_eq!(
        lab.sim_count("node01", &["echo", "set"]),
        0,
        "a clean run sets nothing"
    );
    // The query ran on the host; its outcome (its output) was lost with the controller, which
    // died while the fence saw the command running.
    cut_after_intent(&lab, "node01", false);
    fence_saw(&lab, "node01", false, FenceSaw::Started);
    let journal = run_dir(&lab).join("node01.jsonl");
    let before = std::fs::read(&journal).unwrap_or_else(|e| panic!("{e}"));
    let refused = lab.cairn(&["resume", "--assume", "done"]).fails(2);
    assert!(
        refused.stderr.contains("unknown_result") && refused.stderr.contains("redo"),
        "says the result is unknown and what to do\n{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("book.rhai:2"),
        "points at the call\n{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read(&journal).unwrap_or_else(|e| panic!("{e}")),
        before,
        "nothing was written"
    );
    assert_eq!(lab.sim_count("node01", &["echo", "set"]), 0, "nothing ran");
    lab.cairn(&["resume", "--assume", "node01=redo"]).succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "set"]),
        0,
        "the query ran again and its real output decided: no set"
    );
    assert_eq!(lab.sim_count("node01", &["echo", "LINK_TYPE_P1 ETH(2)"]), 2);
}

#[test]
fn done_for_an_interrupted_action_whose_output_nothing_reads_is_recorded() {
    let lab = query_then_set_run();
    // The last action, `run(["echo", "last"]);`, is a statement of its own.
    cut_after_intent(&lab, "node01", true);
    fence_saw(&lab, "node01", true, FenceSaw::Done("last\n"));
    lab.cairn(&["resume", "--assume", "done"]).succeeds();
    assert_eq!(records(&lab.journal("node01"), "decision").len(), 1);
    assert_eq!(
        lab.sim_count("node01", &["echo", "last"]),
        1,
        "not run again"
    );
}

#[test]
fn a_bare_done_is_for_the_hosts_that_ask_not_for_an_action_the_fence_knows_never_ran() {
    let lab = echo_on_two_hosts_run();
    // Both controllers' journals end at the intent. node01's fence saw the command start and
    // never finish (only an operator can say); node02's never saw it start: it never ran.
    for host in ["node01", "node02"] {
        cut_after_intent(&lab, host, false);
    }
    fence_saw(&lab, "node01", false, FenceSaw::Started);
    fence_saw_nothing(&lab, "node02");
    lab.cairn(&["resume", "--assume", "done"]).succeeds();
    assert_eq!(records(&lab.journal("node01"), "decision").len(), 1);
    assert_eq!(lab.sim_count("node01", &["echo", "a"]), 1, "node01: done");
    assert!(
        records(&lab.journal("node02"), "decision").is_empty(),
        "node02 needed no answer"
    );
    assert_eq!(
        lab.sim_count("node02", &["echo", "a"]),
        2,
        "node02: run, since it never ran"
    );
}

/// What a host's fence saw of an action's first command.
enum FenceSaw {
    /// Started and never finished: only an operator can say what became of it.
    Started,
    /// Done, exit 0, with this output.
    Done(&'static str),
}

/// Makes `host`'s simulated fence hold what a controller that died in its journal's first
/// (or last) action leaves: that action the latest, its first command as `saw` says. A run
/// that ended done pruned its records, so a journal cut after an intent needs them back.
fn fence_saw(lab: &Lab, host: &str, last: bool, saw: FenceSaw) {
    let journal = lab.journal(host);
    let header = records(&journal, "header");
    let intents = records(&journal, "intent");
    let intent = if last {
        intents.last()
    } else {
        intents.first()
    };
    let (Some(header), Some(intent)) = (header.first(), intent) else {
        panic!("{host}: no header or intent");
    };
    let step = format!(
        "{}.{}.{}.1",
        header["data"]["run_id"].as_str().unwrap_or_default(),
        intent["data"]["seq"],
        intent["data"]["at"]
    );
    edit_fence(lab, host, |fence| {
        let mut record = serde_json::json!({ "epoch": fence["epoch"], "owner": fence["owner"] });
        if let FenceSaw::Done(stdout) = saw {
            record["done"] = serde_json::json!({ "code": 0, "stdout": stdout, "stderr": "" });
        }
        fence["steps"] = serde_json::json!({ step: record });
    });
}

/// Empties `host`'s simulated fence of step records: the action never started there.
fn fence_saw_nothing(lab: &Lab, host: &str) {
    edit_fence(lab, host, |fence| fence["steps"] = serde_json::json!({}));
}

/// Reads `host`'s simulated fence (`fence.json`), edits it and writes it back.
fn edit_fence(lab: &Lab, host: &str, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = lab.path().join(".cairn/sim").join(host).join("fence.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut fence: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    edit(&mut fence);
    std::fs::write(&path, fence.to_string()).unwrap_or_else(|e| panic!("{e}"));
}
