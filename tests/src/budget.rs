//! The disruption budget, `--max-unavailable`: reboots and maintenance mode wait for room,
//! failed hosts count, the wait is shown and journaled, and it survives a resume.

use cairn_tests::{Lab, records, run_book_args};
use serde_json::Value;

const REBOOT_ALL: &str = r#"
stage "prepare" on compute {
    run(["echo", "prepare"]);
}

stage "reboot" on compute {
    reboot();
}
"#;

/// A lab rebooting `count` Linux hosts (node01 with the sim options `node01` as well).
fn reboot_all_lab(count: usize, node01: &str) -> Lab {
    Lab::with_book(REBOOT_ALL, &linux_lab(count, node01))
}

fn linux_lab(count: usize, node01: &str) -> String {
    (1..=count)
        .map(|n| {
            let extra = if n == 1 && !node01.is_empty() { format!("&{node01}") } else { String::new() };
            format!(
                "[hosts.node{n:02}]\naddress = \"sim:linux?clock=virtual&reboot_secs=60{extra}\"\ngroups = [\"compute\"]\n"
            )
        })
        .collect()
}

/// When `host`'s reboot began (its old boot id journaled) and ended (its outcome).
fn reboot_span(journal: &[Value]) -> (u64, u64) {
    let seq = records(journal, "intent")
        .into_iter()
        .rfind(|i| i["data"]["builtin"] == "reboot")
        .and_then(|i| i["data"]["seq"].as_u64())
        .unwrap_or_else(|| panic!("no reboot in {journal:?}"));
    let at = |kind: &str| {
        records(journal, kind)
            .into_iter()
            .rfind(|r| r["data"]["seq"] == seq)
            .and_then(|r| r["data"]["at"].as_u64())
            .unwrap_or_else(|| panic!("no {kind} of the reboot"))
    };
    (at("progress"), at("outcome"))
}

/// Checks that no two of the reboot `spans` overlap.
#[track_caller]
fn one_at_a_time(spans: &[(u64, u64)]) {
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            assert!(a.1 <= b.0 || b.1 <= a.0, "reboots overlap: {a:?} {b:?}");
        }
    }
}

#[test]
fn with_a_budget_of_one_no_two_hosts_reboot_at_once_and_the_waits_say_who_holds_it() {
    let lab = reboot_all_lab(4, "");
    let run = lab.run_book(&["--max-unavailable", "1"]).succeeds();
    run.stdout_has("waits: 1 of 1 unavailable: node");
    run.stdout_has(" rebooting");
    let spans: Vec<(u64, u64)> = (1..=4)
        .map(|n| reboot_span(&lab.journal(&format!("node{n:02}"))))
        .collect();
    one_at_a_time(&spans);
    let waits: usize = (1..=4)
        .map(|n| records(&lab.journal(&format!("node{n:02}")), "wait").len())
        .sum();
    assert!(waits >= 1, "the waits are journaled");
    // The report's timeline draws each journaled wait, with who held the budget.
    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let html = std::fs::read_to_string(lab.path().join("report.html")).unwrap_or_default();
    assert_eq!(
        html.matches("class=\"span budget\"").count(),
        waits,
        "{html}"
    );
    assert!(
        html.contains("before a reboot: 1 of 1 unavailable: node"),
        "{html}"
    );
}

#[test]
fn a_host_that_fails_while_up_halts_the_roll_and_holds_no_place_in_the_budget() {
    let lab = reboot_all_lab(3, "fail_once=echo");
    let run = lab.run_book(&["--max-unavailable", "1"]).fails(1);
    run.stdout_has("the roll stopped at the first failed host (node01 failed)");
    run.stdout_has("1 failed, 2 stopped");
    for host in ["node02", "node03"] {
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            0,
            "{host} went down after the halt"
        );
    }

    // Going on past failures explicitly: node01 failed while up, so it takes nothing away and
    // the two others reboot, one at a time, instead of waiting for it for ever.
    let lab = reboot_all_lab(3, "fail_once=echo");
    let run = lab
        .run_book(&["--max-unavailable", "1", "--max-fail-percent", "100"])
        .fails(1);
    run.stdout_has("2 done, 1 failed");
    run.stderr_lacks("held by hosts that left");
    let spans: Vec<(u64, u64)> = ["node02", "node03"]
        .iter()
        .map(|host| reboot_span(&lab.journal(host)))
        .collect();
    one_at_a_time(&spans);
}

#[test]
fn a_bad_budget_is_refused_before_anything_runs() {
    let lab = reboot_all_lab(2, "");
    lab.assert_fails(
        &run_book_args(&["--max-unavailable", "0%"]),
        2,
        &["a percentage from 1% to 100%"],
    );
    assert_eq!(lab.sim_count("node01", &["echo", "prepare"]), 0);
}

#[test]
fn a_host_left_in_maintenance_mode_holds_the_budget_after_a_resume() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        r#"
stage "enter" on first {
    esxcli::maintenance_mode_set(true);
}

stage "stop" on esxi {
    run(["hostname"]);
}

stage "work" on esxi {
    if host().name == "esx01" {
        run(["sleep", "1"]);
        esxcli::maintenance_mode_set(false);
    } else {
        reboot();
    }
}
"#,
    );
    lab.write(
        "lab.toml",
        "[hosts.esx01]\naddress = \"sim:esxi7?reboot_secs=1\"\ngroups = [\"esxi\", \"first\"]\n\
         [hosts.esx02]\naddress = \"sim:esxi7?clock=virtual&reboot_secs=60&fail_once=hostname\"\ngroups = [\"esxi\"]\n",
    );
    let first = lab.run_book(&["--max-unavailable", "1", "--max-fail-percent", "0"]);
    assert_ne!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    let resume = lab.cairn(&["resume"]).succeeds();
    assert!(
        resume
            .stdout
            .lines()
            .any(|l| l.trim_start().starts_with("esx02")
                && l.contains("waits: 1 of 1 unavailable: esx01 maintenance")),
        "{}",
        resume.stdout
    );
    let esx02 = lab.journal("esx02");
    let (reboot_start, _) = reboot_span(&esx02);
    let esx01 = lab.journal("esx01");
    let exit_seq = records(&esx01, "intent")
        .into_iter()
        .rfind(|i| i["data"]["builtin"] == "esxcli::maintenance_mode_set")
        .and_then(|i| i["data"]["seq"].as_u64());
    let exited = records(&esx01, "outcome")
        .into_iter()
        .rfind(|o| o["data"]["seq"].as_u64() == exit_seq)
        .and_then(|o| o["data"]["at"].as_u64())
        .unwrap_or(u64::MAX);
    assert!(
        reboot_start >= exited,
        "esx02 rebooted while esx01 was in maintenance mode"
    );
}

/// Two ESXi hosts whose maintenance mode spans a stage barrier (or a batch turn), with room for
/// one: the host that holds the place waits for the other at the barrier, which waits for the
/// place. Without a check both wait for ever; the run must end, failed: what it printed.
fn deadlocked(book: &str, lab_text: &str) -> String {
    let lab = Lab::with_book(book, lab_text);
    let run = crate::hangs::within(
        lab.command(&run_book_args(&["--max-unavailable", "1"])),
        std::time::Duration::from_secs(60),
        "a budget held across a barrier",
    );
    let out = run.output();
    assert_ne!(run.code, 0, "{out}");
    out
}

const TWO_ESXI: &str = "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual\"\ngroups = [\"esxi\"]\n\
                        [hosts.esx02]\naddress = \"sim:esxi7?clock=virtual\"\ngroups = [\"esxi\", \"second\"]\n";

#[test]
fn maintenance_mode_held_across_a_barrier_ends_the_run_as_a_deadlock_instead_of_hanging() {
    let out = deadlocked(
        r#"
stage "enter" on esxi {
    esxcli::maintenance_mode_set(true);
}

stage "leave" on esxi {
    esxcli::maintenance_mode_set(false);
}
"#,
        TWO_ESXI,
    );
    assert!(out.contains("a deadlock"), "{out}");
    assert!(
        out.contains("while they wait at the start of stage 2"),
        "{out}"
    );
}

#[test]
fn a_holder_waiting_for_its_batch_behind_the_waiter_ends_the_run_as_a_deadlock() {
    let out = deadlocked(
        r#"
stage "enter" on second {
    esxcli::maintenance_mode_set(true);
}

stage "roll" on esxi serial 1 {
    esxcli::maintenance_mode_set(true);
    esxcli::maintenance_mode_set(false);
}
"#,
        TWO_ESXI,
    );
    assert!(out.contains("for their batch of stage 2"), "{out}");
}

/// Two storage hosts and three compute hosts that all reboot, under one limit per group; the
/// reboots take a second of real time, so their spans in the journals are comparable.
fn two_group_lab() -> String {
    let host = |name: &str, group: &str| {
        format!("[hosts.{name}]\naddress = \"sim:linux?reboot_secs=1\"\ngroups = [\"{group}\"]\n")
    };
    [
        host("st01", "storage"),
        host("st02", "storage"),
        host("cn01", "compute"),
        host("cn02", "compute"),
        host("cn03", "compute"),
    ]
    .concat()
}

/// Each journaled budget wait of `host`: its limit and the hosts that held the places.
fn waits_of(lab: &Lab, host: &str) -> Vec<(u64, Vec<String>)> {
    records(&lab.journal(host), "wait")
        .into_iter()
        .map(|w| {
            let limit = w["data"]["limit"].as_u64().unwrap_or_default();
            let holders = w["data"]["holders"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|h| h.as_str()?.split(' ').next().map(str::to_owned))
                .collect();
            (limit, holders)
        })
        .collect()
}

/// Every host of [`two_group_lab`] reboots once under `--max-unavailable limits`.
fn reboot_all_under(limits: &str) -> (Lab, cairn_tests::Run) {
    let lab = Lab::with_book(
        "stage \"reboot\" on all {\n    reboot();\n}\n",
        &two_group_lab(),
    );
    let run = lab.run_book(&["--max-unavailable", limits]);
    (lab, run)
}

#[test]
fn each_group_has_its_own_limit_and_a_group_the_inventory_lacks_is_refused() {
    let (lab, run) = reboot_all_under("storage=1,compute=2");
    let run = run.succeeds();
    // Each wait is for the host's own group, held by that group's hosts only: a storage host
    // never waits for a compute host's reboot, nor the other way round.
    let storage: Vec<_> = ["st01", "st02"]
        .iter()
        .flat_map(|h| waits_of(&lab, h))
        .collect();
    let compute: Vec<_> = ["cn01", "cn02", "cn03"]
        .iter()
        .flat_map(|h| waits_of(&lab, h))
        .collect();
    assert!(!storage.is_empty() && !compute.is_empty(), "{}", run.stdout);
    for (limit, holders) in &storage {
        assert_eq!(*limit, 1);
        assert!(
            holders.len() == 1 && holders[0].starts_with("st"),
            "{holders:?}"
        );
    }
    for (limit, holders) in &compute {
        assert_eq!(*limit, 2);
        assert!(
            holders.len() == 2 && holders.iter().all(|h| h.starts_with("cn")),
            "{holders:?}"
        );
    }
    run.stdout_has("waits: 2 of 2 compute unavailable: cn0");

    let (typo, refused) = reboot_all_under("storage=1,computer=2");
    let refused = refused.fails(2);
    assert!(
        crate::refusals::unwrapped(&refused.stderr)
            .contains("the inventory has no group `computer`"),
        "{}",
        refused.stderr
    );
    refused.stderr_has("did you mean `compute`?");
    assert_eq!(typo.sim_count("cn01", &["reboot"]), 0, "nothing ran");
}
