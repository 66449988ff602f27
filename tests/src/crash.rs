//! Crash at every action boundary, then resume: the final state equals an uninterrupted run and
//! every non-idempotent action ran exactly once, by the simulated host's own log.

use std::process::Stdio;
use std::time::{Duration, Instant};

use cairn_tests::{Lab, Run, records};

use crate::executor::{THREE_STAGES, inventory};

pub(crate) const HOSTS: [&str; 2] = ["node01", "node02"];

pub(crate) fn lab() -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", THREE_STAGES);
    lab.write(
        "lab.toml",
        &inventory("node[01-02]", "reboot_secs=2&clock=virtual"),
    );
    lab
}

/// The crash tests need the journal writer's hook, which only a build with the
/// `fault-injection` feature has: say so once, plainly, instead of a dozen odd failures.
#[test]
fn the_binary_under_test_has_the_crash_hook() {
    let lab = lab();
    let run = lab.cairn_with(
        &["run", "book.rhai", "-i", "lab.toml"],
        &[("CAIRN_FAULT_EXIT_AT_WRITE", "1:after")],
    );
    assert_eq!(
        run.code, 137,
        "the binary ignored CAIRN_FAULT_EXIT_AT_WRITE: build it with `cargo build --workspace` (or `cargo build -p cairn --features fault-injection`)\n{}",
        run.stderr
    );
}

/// Journal writes of an uninterrupted run, across all hosts.
fn writes_of_a_whole_run() -> usize {
    let lab = lab();
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml", "--forks", "1"])
        .succeeds();
    HOSTS.iter().map(|h| lab.journal(h).len()).sum()
}

pub(crate) fn assert_exactly_once(lab: &Lab, context: &str) {
    for host in HOSTS {
        assert_eq!(
            lab.sim_count(host, &["echo", "cairn"]),
            1,
            "{context}: {host} echoed once"
        );
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            2,
            "{context}: {host} rebooted twice"
        );
        let boots = lab.sim_count(host, &["journalctl"]);
        assert!(boots >= 1, "{context}: {host} reached the last stage");
        let journal = lab.journal(host);
        let ends = records(&journal, "host_end");
        assert_eq!(
            ends.last().map(|e| e["data"]["status"].clone()),
            Some("done".into()),
            "{context}: {host}"
        );
    }
}

/// Runs `cairn ARGS` with the journal writer killing it (exit 137) at `fault` (`K:before` or
/// `K:after`), which must kill it unless the run ended before that write: whether it did.
pub(crate) fn crashed_at(lab: &Lab, args: &[&str], fault: &str) -> bool {
    let crashed = lab.call(args).env("CAIRN_FAULT_EXIT_AT_WRITE", fault).run();
    if crashed.code == 0 {
        return false;
    }
    assert_eq!(crashed.code, 137, "crash {fault}: {}", crashed.stderr);
    true
}

/// Resumes the newest run by id, which must end well. By id: a kill at the run's very last
/// write leaves it finished, and resuming it replays.
pub(crate) fn resume_by_id(lab: &Lab, context: &str) -> Run {
    let id = lab.runs().pop().unwrap_or_default();
    let resumed = lab.cairn(&["resume", &id]);
    assert_eq!(
        resumed.code, 0,
        "{context}: resume\n{}\n{}",
        resumed.stdout, resumed.stderr
    );
    resumed
}

/// Resumes until done, answering an unknown outcome with `answer` when asked.
pub(crate) fn resume(lab: &Lab, answer: &str, context: &str) -> Run {
    // The run may have finished before the crash; resuming it by id then replays it all.
    let id = lab.runs().pop().unwrap_or_default();
    let run = lab.cairn(&["resume", &id]);
    if run.code == 2 && run.stderr.contains("outcome was not recorded") {
        let decided = lab.cairn(&["resume", &id, "--assume", answer]);
        assert_eq!(
            decided.code, 0,
            "{context}: resume --assume {answer}\n{}\n{}",
            decided.stdout, decided.stderr
        );
        return decided;
    }
    assert_eq!(
        run.code, 0,
        "{context}: resume\n{}\n{}",
        run.stdout, run.stderr
    );
    run
}

/// Crashes a fresh lab's run at each of its `total` journal writes (`K:when`), resumes it
/// answering an unknown outcome with `answer`, and checks each action ran exactly once.
fn crash_at_each_write_and_resume(total: usize, when: &str, answer: &str) {
    for k in 1..=total {
        let lab = lab();
        let fault = format!("{k}:{when}");
        if !crashed_at(
            &lab,
            &["run", "book.rhai", "-i", "lab.toml", "--forks", "1"],
            &fault,
        ) {
            continue;
        }
        resume(&lab, answer, &fault);
        assert_exactly_once(&lab, &fault);
    }
}

#[test]
fn a_crash_after_any_journal_write_resumes_to_exactly_once() {
    let total = writes_of_a_whole_run();
    assert!(total > 30, "the run writes {total} records");
    // Right after an intent the command has not run yet: running it again is right.
    crash_at_each_write_and_resume(total, "after", "redo");
}

#[test]
fn a_crash_before_any_journal_write_resumes_to_exactly_once() {
    // Right before an outcome the command has run: recording it as done is right.
    crash_at_each_write_and_resume(writes_of_a_whole_run(), "before", "done");
}

#[test]
fn the_wrong_answer_to_an_unknown_outcome_is_visible_in_the_host_log() {
    // The decision is the operator's: `redo` after a command that did run runs it twice. The
    // journal records the decision, so the double run can be traced.
    let total = writes_of_a_whole_run();
    let lab = lab();
    let mut asked = false;
    for k in 1..=total {
        let fault = format!("{k}:before");
        let lab_k = self::lab();
        // Unfenced: a fenced host's record would settle the outcome without asking.
        lab_k.write(
            "lab.toml",
            &inventory("node[01-02]", "reboot_secs=2&clock=virtual&fence=false"),
        );
        let crashed = lab_k.cairn_with(
            &["run", "book.rhai", "-i", "lab.toml", "--forks", "1"],
            &[("CAIRN_FAULT_EXIT_AT_WRITE", &fault)],
        );
        if crashed.code != 137 {
            continue;
        }
        let first = lab_k.cairn(&["resume"]);
        if first.code == 2 && first.stderr.contains("outcome was not recorded") {
            lab_k.cairn(&["resume", "--assume", "redo"]).succeeds();
            let echoes: usize = HOSTS
                .iter()
                .map(|h| lab_k.sim_count(h, &["echo", "cairn"]))
                .sum();
            assert_eq!(echoes, 3, "one host echoed twice, as the operator chose");
            let decisions: usize = HOSTS
                .iter()
                .map(|h| records(&lab_k.journal(h), "decision").len())
                .sum();
            assert_eq!(decisions, 1);
            asked = true;
            break;
        }
    }
    drop(lab);
    assert!(asked, "some crash point left an unknown outcome");
}

#[test]
fn the_binary_killed_during_a_reboot_resumes_correctly() {
    let lab = Lab::new();
    lab.write("book.rhai", THREE_STAGES);
    lab.write("lab.toml", &inventory("node[01-02]", "reboot_secs=3"));
    let mut child = lab
        .command(&["run", "book.rhai", "-i", "lab.toml"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let rebooting = HOSTS.iter().any(|h| {
            lab.journal(h).iter().any(|r| r["type"] == "progress")
                && lab.sim_count(h, &["reboot"]) == 1
        });
        if rebooting || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap_or_else(|e| panic!("SIGKILL: {e}"));
    let _ = child.wait();
    resume(&lab, "redo", "killed during a reboot");
    assert_exactly_once(&lab, "killed during a reboot");
}

#[test]
fn ctrl_c_stops_cleanly_and_the_run_resumes() {
    let lab = Lab::new();
    lab.write("book.rhai", THREE_STAGES);
    lab.write("lab.toml", &inventory("node[01-02]", "reboot_secs=2"));
    let child = lab
        .command(&["run", "book.rhai", "-i", "lab.toml"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let deadline = Instant::now() + Duration::from_secs(30);
    while !HOSTS.iter().all(|h| lab.sim_count(h, &["reboot"]) == 1) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(interrupted);
    let stopped_at = Instant::now();
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("wait: {e}"));
    assert!(
        stopped_at.elapsed() < Duration::from_secs(2),
        "stops without waiting for the reboot"
    );
    // Stopped by a signal, not failed: 130 (README, exit codes).
    assert_eq!(output.status.code(), Some(130));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("0 done, 0 failed, 2 stopped"), "{stdout}");
    for host in HOSTS {
        let journal = lab.journal(host);
        let ends = records(&journal, "host_end");
        assert_eq!(
            ends.last().map(|e| e["data"]["status"].clone()),
            Some("cancelled".into())
        );
    }
    resume(&lab, "redo", "after Ctrl-C");
    assert_exactly_once(&lab, "after Ctrl-C");
}
