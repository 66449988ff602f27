//! A controller on the shared store ended abruptly at every journal write of a run (the journal
//! writer's crash hook: before the write, the record reached neither the store nor the file;
//! after it, both), then `cairn resume --store` from another folder once its session expired:
//! every changing command of the runbook ran exactly once on every host, whichever record was
//! the last the store kept.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use cairn_store_pg::scratch_server::ScratchServer;
use cairn_tests::{Lab, Run};

use crate::shared_store::{
    each_change_once, first_run, fleet_of, folder, run, run_on_store, store,
};

/// The shared-store folder's runbook on hosts whose reboots take a second.
const QUICK_INVENTORY: &str = "[hosts.\"n[1-2]\"]\naddress = \"sim:linux?reboot_secs=1\"\n";
const TTL: &str = "3";
/// Crash points tried at once.
const AT_ONCE: usize = 4;

#[test]
fn a_controller_ended_at_every_journal_write_resumes_from_the_store_each_change_once() {
    let Some((server, url)) = store("a_controller_ended_at_every_journal_write") else {
        return;
    };
    let writes = writes_of_a_whole_run(&url);
    assert!(writes > 10, "a whole run wrote {writes} records");
    let points: Vec<(u64, &str)> = (1..=writes)
        .flat_map(|k| [(k, "before"), (k, "after")])
        .collect();
    let next = Mutex::new(points.into_iter());
    let wrong = Mutex::new(Vec::new());
    let ended_at = Mutex::new(0u64);
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                loop {
                    let point = next.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some((k, moment)) = point else {
                        return;
                    };
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        crash_and_resume(&server, k, moment)
                    }));
                    if outcome.as_ref().is_ok_and(|ended| *ended) {
                        *ended_at.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                    }
                    if let Err(panic) = outcome {
                        let said = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                            .unwrap_or_default();
                        wrong
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(format!("write {k}:{moment}: {said}"));
                    }
                }
            });
        }
    });
    let wrong = wrong.into_inner().unwrap_or_else(|e| e.into_inner());
    let ended_at = ended_at.into_inner().unwrap_or_else(|e| e.into_inner());
    eprintln!("{ended_at} of {} crash points ended the run", 2 * writes);
    assert!(
        ended_at >= writes,
        "only {ended_at} of {} crash points ended the run",
        2 * writes
    );
    assert!(
        wrong.is_empty(),
        "{} of {} crash points went wrong:\n{}",
        wrong.len(),
        2 * writes,
        wrong.join("\n")
    );
}

/// How many journal records a whole run writes (every journal of its working copy).
fn writes_of_a_whole_run(url: &str) -> u64 {
    let lab = folder();
    lab.write("inv.toml", QUICK_INVENTORY);
    let fleet = fleet_of(&lab);
    run(&lab, &fleet, &run_on_store(url, TTL)).succeeds();
    cairn_tests::files(&lab.path().join(".cairn"))
        .iter()
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .map(|path| {
            std::fs::read_to_string(path)
                .unwrap_or_default()
                .lines()
                .count() as u64
        })
        .sum()
}

/// A run on a new database ended at its `k`th journal write (`moment`), resumed from another
/// folder once its session expired, and its fleet checked; `false` when the run did not end
/// there.
fn crash_and_resume(server: &ScratchServer, k: u64, moment: &str) -> bool {
    let url = server.new_database().redacted();
    let (a, b) = (folder(), Lab::new());
    a.write("inv.toml", QUICK_INVENTORY);
    let fleet = fleet_of(&a);
    let crashed = a
        .call(&run_on_store(&url, TTL))
        .env("CAIRN_SIM_DIR", &fleet)
        .env("CAIRN_FAULT_EXIT_AT_WRITE", format!("{k}:{moment}"))
        .run();
    // Two hosts write at once, so the `k`th write's "before" can pass unseen: no crash then.
    if crashed.code == 0 {
        return false;
    }
    crashed.fails(137);
    let id = first_run(&run(&b, &fleet, &["runs", "--store", &url]).stdout);
    // Refused while the ended controller's session lives (its TTL); then taken over.
    let mut resumed = resume_once_expired(&b, &fleet, &[&id, "--store", &url]);
    // The simulated hosts run in the controller's process: ended while a command ran, it left
    // that step started and not done, which only an operator can settle; the operator answers
    // what happened.
    if resumed.stderr.contains("cairn::runtime::needs_decision") {
        let answers: Vec<String> = ["n1", "n2"]
            .iter()
            .filter_map(|host| truthful_answer(&fleet, host))
            .flat_map(|answer| ["--assume".to_owned(), answer])
            .collect();
        let mut args = vec![id.as_str(), "--store", url.as_str()];
        args.extend(answers.iter().map(String::as_str));
        resumed = resume_once_expired(&b, &fleet, &args);
    }
    resumed.succeeds();
    each_change_once(&fleet, &["n1", "n2"], &["echo A", "echo B"]);
    for host in ["n1", "n2"] {
        let log = std::fs::read_to_string(format!("{fleet}/{host}/fenced.log")).unwrap_or_default();
        assert_eq!(
            log.matches("\"command\":\"reboot\"").count(),
            1,
            "{host}: one reboot, under the fence"
        );
    }
    true
}

/// `HOST=done` or `HOST=redo` for the step `host`'s fence saw start and never finish: done when
/// the fence logged the command as let through (it logs it just before running it), redo when
/// the controller ended between the step's record and that line; `None` without such a step.
fn truthful_answer(fleet: &str, host: &str) -> Option<String> {
    let fence = std::fs::read_to_string(format!("{fleet}/{host}/fence.json")).ok()?;
    let fence: serde_json::Value = serde_json::from_str(&fence).ok()?;
    let open = fence["steps"]
        .as_object()?
        .iter()
        .find(|(_, step)| step["done"].is_null())
        .map(|(id, _)| id.clone())?;
    let log = std::fs::read_to_string(format!("{fleet}/{host}/fenced.log")).unwrap_or_default();
    let ran = log.contains(&format!("\"step\":\"{open}\""));
    Some(format!("{host}={}", if ran { "done" } else { "redo" }))
}

/// `cairn resume RUN ARGS...` in `lab` once the ended controller's session expired.
fn resume_once_expired(lab: &Lab, fleet: &str, args: &[&str]) -> Run {
    let mut resume = vec!["resume"];
    resume.extend_from_slice(args);
    resume.extend_from_slice(&["--lease-ttl", TTL]);
    let limit = Instant::now() + Duration::from_secs(20);
    loop {
        let resumed = run(lab, fleet, &resume);
        if resumed.code == 0 || Instant::now() > limit || !resumed.stderr.contains("session") {
            return resumed;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
