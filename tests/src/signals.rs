//! SIGTERM and SIGHUP stop a run as Ctrl-C does; a second signal stops it at once, naming the
//! actions it leaves unknown.

use std::time::{Duration, Instant};

use cairn_tests::{Lab, records, send_signal};

use crate::hangs::within_after;

const HOSTS: [&str; 2] = ["node01", "node02"];

/// Two simulated hosts on the real clock, whose first stage sleeps `secs` seconds.
fn lab(secs: u32) -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        &format!(
            "stage \"a\" on all {{ run([\"sleep\", \"{secs}\"]); }}\n\
             stage \"b\" on all {{ run([\"echo\", \"after\"]); }}\n"
        ),
    );
    lab.write(
        "lab.toml",
        // Unfenced: a simulated command killed with its controller would otherwise be known
        // never to have run (the fence's record, tests/src/fencing.rs); these tests are of
        // the outcome nobody knows.
        "[hosts.\"node[01-02]\"]\naddress = \"sim:linux?fence=false\"\n",
    );
    lab
}

/// Waits until every host has journaled the intent of its sleep.
fn wait_for_sleeps(lab: &Lab) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !HOSTS
        .iter()
        .all(|h| !records(&lab.journal(h), "intent").is_empty())
    {
        assert!(
            Instant::now() < deadline,
            "the hosts never started to sleep"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_and_sighup_stop_a_run_cleanly_and_resume_needs_no_assume() {
    for name in ["TERM", "HUP"] {
        let lab = lab(2);
        let run = within_after(
            lab.command(&["run", "book.rhai", "-i", "lab.toml"]),
            Duration::from_secs(30),
            name,
            |pid| {
                wait_for_sleeps(&lab);
                send_signal(pid, name);
            },
        );
        // A stop is not a failure: CI can tell them apart.
        assert_eq!(run.code, 130, "SIG{name}\n{}\n{}", run.stdout, run.stderr);
        run.stderr_has(&format!("SIG{name}: stopping"));
        run.stdout_has("0 done, 0 failed, 2 stopped");
        for host in HOSTS {
            let journal = lab.journal(host);
            let ends = records(&journal, "host_end");
            assert_eq!(
                ends.last().map(|e| e["data"]["status"].clone()),
                Some("cancelled".into()),
                "SIG{name}: {host}"
            );
            // The sleep finished and was recorded: no intent is left without its outcome.
            let intents = records(&journal, "intent");
            let outcomes = records(&journal, "outcome");
            assert!(!intents.is_empty());
            for intent in intents {
                assert!(
                    outcomes
                        .iter()
                        .any(|o| o["data"]["seq"] == intent["data"]["seq"]),
                    "SIG{name}: {host}: {intent} has no outcome"
                );
            }
        }
        let resumed = lab.cairn(&["resume"]);
        assert_eq!(
            resumed.code, 0,
            "SIG{name}: resume without --assume\n{}\n{}",
            resumed.stdout, resumed.stderr
        );
        for host in HOSTS {
            assert_eq!(lab.sim_count(host, &["sleep"]), 1, "SIG{name}: {host}");
            assert_eq!(
                lab.sim_count(host, &["echo", "after"]),
                1,
                "SIG{name}: {host}"
            );
        }
    }
}

#[test]
fn a_stop_by_ctrl_c_exits_130_and_run_finished_says_stopped() {
    let lab = lab(2);
    let run = within_after(
        lab.command(&["run", "book.rhai", "-i", "lab.toml", "--json"]),
        Duration::from_secs(30),
        "SIGINT",
        |pid| {
            wait_for_sleeps(&lab);
            send_signal(pid, "INT");
        },
    )
    .fails(130);
    let last: serde_json::Value = run
        .stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_default();
    assert_eq!(last["event"], "run_finished", "{}", run.stdout);
    assert_eq!(
        (last["exit"].clone(), last["exit_code"].clone()),
        ("stopped".into(), 130.into()),
        "{last}"
    );
}

#[test]
fn a_second_signal_stops_at_once_and_names_the_actions_in_flight() {
    let lab = lab(30);
    let mut signalled = Instant::now();
    let run = within_after(
        lab.command(&["run", "book.rhai", "-i", "lab.toml"]),
        Duration::from_secs(20),
        "a second signal",
        |pid| {
            wait_for_sleeps(&lab);
            send_signal(pid, "TERM");
            std::thread::sleep(Duration::from_millis(200));
            signalled = Instant::now();
            send_signal(pid, "INT");
        },
    );
    assert!(
        signalled.elapsed() < Duration::from_secs(5),
        "did not wait for the 30 s sleeps"
    );
    assert_eq!(run.code, 128 + 2, "{}\n{}", run.stdout, run.stderr);
    run.stderr_has("a second signal (SIGINT): stopping at once");
    for host in HOSTS {
        assert!(
            run.stderr.contains(&format!("{host}: run sleep 30")),
            "{host} is named with its action\n{}",
            run.stderr
        );
        // Its fate is truly unknown: the intent stays open and the host has no end.
        let journal = lab.journal(host);
        assert!(records(&journal, "outcome").is_empty(), "{host}");
        assert!(records(&journal, "host_end").is_empty(), "{host}");
    }
    lab.assert_fails(&["resume"], 2, &["outcome was not recorded"]);
    lab.cairn(&["resume", "--assume", "done"]).succeeds();
    for host in HOSTS {
        assert_eq!(lab.sim_count(host, &["echo", "after"]), 1, "{host}");
    }
}
