//! A run shared between controllers from the start (`cairn run --controllers N` and `cairn
//! join`, docs/fleet.md) through the binary, on a scratch PostgreSQL and one simulated fleet
//! two working folders reach: each host is driven once, by one share; no host starts a stage
//! before every host of every share has reached it; and the disruption budget counts the hosts
//! down across both controllers.

use serde_json::Value;

use cairn_tests::{Lab, spawn_piped};

use crate::shared_store::{each_change_once, ended, fleet_of, run, store, with_fleet};

/// Two stages, the first rebooting every host.
const BOOK: &str = "stage \"one\" on all {\n    run([\"echo\", \"one\"]);\n    reboot();\n}\nstage \"two\" on all {\n    run([\"echo\", \"two\"]);\n}\n";
const INVENTORY: &str = "[hosts.\"n[1-4]\"]\naddress = \"sim:linux?reboot_secs=2\"\n";
const HOSTS: [&str; 4] = ["n1", "n2", "n3", "n4"];

/// A working folder with the runbook and inventory.
fn folder() -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("inv.toml", INVENTORY);
    lab
}

/// `cairn run` of `book` and the folder's inventory on the store at `url`, shared between
/// `controllers` controllers.
fn shared<'a>(book: &'a str, url: &'a str, controllers: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        book,
        "-i",
        "inv.toml",
        "--store",
        url,
        "--controllers",
        controllers,
    ]
}

/// Each host's journal records of the shared run, from the working copies of both folders.
fn journal(labs: &[&Lab], host: &str) -> Vec<Value> {
    for lab in labs {
        let runs = lab.path().join(".cairn/store/runs");
        for entry in std::fs::read_dir(&runs).into_iter().flatten().flatten() {
            let path = entry.path().join(format!("{host}.jsonl"));
            if let Ok(text) = std::fs::read_to_string(&path) {
                return text
                    .lines()
                    .filter_map(|line| serde_json::from_str(line).ok())
                    .collect();
            }
        }
    }
    panic!("no journal of {host} in either folder");
}

/// When `host`'s action `builtin` (whose first argument starts `arg`, if given) began and
/// ended, in milliseconds.
fn span(journal: &[Value], builtin: &str, arg: Option<&str>) -> (u64, u64) {
    let intent = journal
        .iter()
        .find(|r| {
            r["type"] == "intent"
                && r["data"]["builtin"] == builtin
                && arg.is_none_or(|a| r["data"]["args"]["argv"][1].as_str() == Some(a))
        })
        .unwrap_or_else(|| panic!("no {builtin} {arg:?} in {journal:?}"));
    let seq = &intent["data"]["seq"];
    let outcome = journal
        .iter()
        .find(|r| r["type"] == "outcome" && &r["data"]["seq"] == seq)
        .unwrap_or_else(|| panic!("no outcome of {builtin} {arg:?}"));
    let at = |r: &Value| r["data"]["at"].as_u64().unwrap_or_default();
    (at(intent), at(outcome))
}

/// When the host's reboot was sent (its progress record, written once the reboot had its place
/// in the budget) and when it ended.
fn down(journal: &[Value]) -> (u64, u64) {
    let (_, ended) = span(journal, "reboot", None);
    let sent = journal
        .iter()
        .find(|r| r["type"] == "progress" && r["data"]["data"]["old_boot_id"].is_string())
        .and_then(|r| r["data"]["at"].as_u64())
        .unwrap_or_else(|| panic!("no reboot sent in {journal:?}"));
    (sent, ended)
}

/// The run id a journal's header names.
fn header_run_id(journal: &[Value]) -> String {
    journal
        .first()
        .and_then(|header| header["data"]["run_id"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The barrier and the budget held across the shares: stage two began nowhere before stage one
/// ended everywhere, and no two hosts were down at once, whichever controller drove them (down
/// from the reboot's first progress, sent once it had its place, to its end).
fn barrier_and_budget_held(journals: &[Vec<Value>]) {
    let one_ended = journals
        .iter()
        .map(|j| span(j, "reboot", None).1)
        .max()
        .unwrap_or_default();
    let two_began = journals
        .iter()
        .map(|j| span(j, "run", Some("two")).0)
        .min()
        .unwrap_or_default();
    assert!(
        one_ended <= two_began,
        "stage two began at {two_began}, before stage one ended at {one_ended}"
    );
    let mut reboots: Vec<(u64, u64)> = journals.iter().map(|j| down(j)).collect();
    reboots.sort_unstable();
    for pair in reboots.windows(2) {
        assert!(
            pair[0].1 <= pair[1].0,
            "two hosts down at once: {reboots:?}"
        );
    }
}

#[test]
fn two_controllers_share_a_run_its_barriers_and_its_budget() {
    let Some((_server, url)) = store("two_controllers_share_a_run") else {
        return;
    };
    let (a, b) = (folder(), Lab::new());
    let fleet = fleet_of(&a);
    let mut args = shared("book.rhai", &url, "2");
    args.extend(["--max-unavailable", "1"]);
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    // The second controller joins a moment later, from a folder with no runbook or inventory:
    // the first share's hosts wait at stage two's barrier for the second share's.
    std::thread::sleep(std::time::Duration::from_secs(1));
    let joined = run(&b, &fleet, &["join", "--store", &url]);
    ended(first).succeeds();
    let joined = joined.succeeds();
    joined.stdout_has("join: driving share 2 of 2 of run");
    let journals: Vec<Vec<Value>> = HOSTS.iter().map(|h| journal(&[&a, &b], h)).collect();
    // Each host once, by the share it belongs to.
    each_change_once(&fleet, &HOSTS, &["echo one", "echo two"]);
    for (host, journal) in HOSTS.iter().zip(&journals) {
        let header = journal.first().unwrap_or_else(|| panic!("{host}: empty"));
        let run_id = header["data"]["run_id"].as_str().unwrap_or_default();
        assert_eq!(
            run_id.contains('.'),
            ["n3", "n4"].contains(host),
            "{host} in {run_id}"
        );
    }
    barrier_and_budget_held(&journals);
    // A mistyped run id is refused with the nearest one; a right one with nothing left says so.
    let id = header_run_id(&journals[0]);
    let typo = format!("{id}x");
    run(&b, &fleet, &["join", "--store", &url, &typo])
        .fails(2)
        .stderr_has("did you mean");
    run(&b, &fleet, &["join", "--store", &url, &id])
        .fails(3)
        .stdout_has("has no share left to drive");
    // Nothing is left to join.
    let none = run(&b, &fleet, &["join", "--store", &url]);
    let none = none.fails(3);
    none.stdout_has("no shared run has a share left");
}

#[test]
fn a_run_is_shared_only_through_a_store_and_without_controller_stages() {
    let lab = folder();
    let refused = lab.cairn(&["run", "book.rhai", "-i", "inv.toml", "--controllers", "2"]);
    let refused = refused.fails(2);
    refused.stderr_has("--controllers 2: a run shared between controllers lives");
    assert!(lab.runs().is_empty(), "nothing was created");
    let Some((_server, url)) = store("a_run_with_controller_stages_is_not_shared") else {
        return;
    };
    lab.write(
        "fabric.rhai",
        "stage \"s\" on all {\n    run([\"true\"]);\n}\nstage \"c\" on controller {\n    run([\"true\"]);\n}\n",
    );
    let fleet = fleet_of(&lab);
    let refused = run(&lab, &fleet, &shared("fabric.rhai", &url, "2"));
    let refused = refused.fails(2);
    refused.stderr_has("`on controller` stages");
    let refused = run(&lab, &fleet, &shared("book.rhai", &url, "5"));
    let refused = refused.fails(2);
    refused.stderr_has("fewer than the controllers");
}

#[test]
fn a_standby_takes_over_the_share_of_a_controller_killed_mid_reboot() {
    let Some((_server, url)) = store("a_standby_takes_over_a_share") else {
        return;
    };
    let (a, b, c) = (folder(), Lab::new(), Lab::new());
    let fleet = fleet_of(&a);
    let ttl = ["--lease-ttl", "4"];
    let mut args = shared("book.rhai", &url, "2");
    args.extend(["--max-unavailable", "1"]);
    args.extend(ttl);
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    std::thread::sleep(std::time::Duration::from_secs(1));
    let mut join = vec!["join", "--store", &url];
    join.extend(ttl);
    let joined = spawn_piped(with_fleet(b.command(&join), &fleet));
    // Killed while its first host reboots: that host stays down for the budget, and the first
    // share's hosts wait at stage two's barrier until a standby finishes the second share.
    crate::shared_store::kill_once_rebooting(joined, &fleet, &["n3"]);
    // Its session expires 4 s after its last renewal.
    std::thread::sleep(std::time::Duration::from_secs(5));
    let mut standby = vec!["standby", "--store", &url, "--once", "--poll", "1"];
    standby.extend(ttl);
    let standby = run(&c, &fleet, &standby);
    let standby = standby.succeeds();
    standby.stdout_has(".2 over from");
    ended(first).succeeds();
    each_change_once(&fleet, &HOSTS, &["echo one", "echo two"]);
    // The standby's working copy holds the second share's whole journals.
    let journals: Vec<Vec<Value>> = HOSTS.iter().map(|h| journal(&[&a, &c], h)).collect();
    barrier_and_budget_held(&journals);
}
