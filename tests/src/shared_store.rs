//! Runs on the shared PostgreSQL store through the binary (docs/fleet.md): read back from
//! another working folder, a second run refused a held host, and a SIGKILLed controller's run
//! refused while its session lives and taken over once it expired, each changing command of
//! the run executed exactly once. Each test starts its own scratch server, or says loudly
//! that it skips.

use std::process::Command;
use std::time::Duration;

use cairn_store_pg::scratch_server::ScratchServer;
use cairn_tests::{Lab, Run, spawn_piped, wait_until};
use serde_json::Value;

/// How long a test waits for a run to get somewhere.
pub(crate) const LIMIT: Duration = Duration::from_secs(30);

/// Two changing commands around a reboot (3 s): a run holds its hosts a while.
pub(crate) const BOOK: &str = "stage \"s\" on all {\n    run([\"echo\", \"A\"]);\n    reboot();\n    run([\"echo\", \"B\"]);\n}\n";
pub(crate) const INVENTORY: &str = "[hosts.\"n[1-2]\"]\naddress = \"sim:linux?reboot_secs=3\"\n";

/// A scratch server and a fresh database's URL, or `None` (skipped, said loudly).
pub(crate) fn store(what: &str) -> Option<(ScratchServer, String)> {
    let server = ScratchServer::start_or_skip(what)?;
    let url = server.new_database().redacted();
    Some((server, url))
}

/// A working folder with the runbook and inventory.
pub(crate) fn folder() -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("inv.toml", INVENTORY);
    lab
}

/// `cairn run` of the folder's runbook and inventory on the store at `url`, with session TTL
/// `ttl` seconds.
pub(crate) fn run_on_store<'a>(url: &'a str, ttl: &'a str) -> [&'a str; 8] {
    [
        "run",
        "book.rhai",
        "-i",
        "inv.toml",
        "--store",
        url,
        "--lease-ttl",
        ttl,
    ]
}

pub(crate) fn with_fleet(mut command: Command, fleet: &str) -> Command {
    command.env("CAIRN_SIM_DIR", fleet);
    command
}

pub(crate) fn run(lab: &Lab, fleet: &str, args: &[&str]) -> Run {
    lab.cairn_with(args, &[("CAIRN_SIM_DIR", fleet)])
}

/// The run of a controller started with [`spawn_piped`], once it has ended.
pub(crate) fn ended(child: std::process::Child) -> Run {
    Run::from(
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait: {e}")),
    )
}

/// Checks that each of `hosts` of the shared fleet ran `commands` under its fence, each once.
#[track_caller]
pub(crate) fn each_change_once(fleet: &str, hosts: &[&str], commands: &[&str]) {
    for host in hosts {
        assert_eq!(fenced(fleet, host), commands, "{host}: each change once");
    }
}

/// The runbook's `echo`es the shared fleet's `host` ran under its fence (`fenced.log`; the
/// reboot's own commands left out).
pub(crate) fn fenced(fleet: &str, host: &str) -> Vec<String> {
    fenced_by(fleet, host)
        .into_iter()
        .map(|(command, _)| command)
        .collect()
}

/// [`fenced`]'s commands, each with the caller the fence recorded (`RUN@CONTROLLER:PID`).
pub(crate) fn fenced_by(fleet: &str, host: &str) -> Vec<(String, String)> {
    std::fs::read_to_string(format!("{fleet}/{host}/fenced.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| {
            let command = line["command"].as_str()?;
            let owner = line["owner"].as_str()?;
            command
                .starts_with("echo ")
                .then(|| (command.to_owned(), owner.to_owned()))
        })
        .collect()
}

/// Whether `host` of the shared fleet is in its reboot with every fenced step done: a kill then
/// leaves no command started and unfinished (in the simulator the host runs inside the
/// controller's process, so a kill between a step's `started` and `done` is a real "outcome
/// unknown", which the resume rightly asks about).
pub(crate) fn rebooting_with_steps_done(fleet: &str, host: &str) -> bool {
    let log = std::fs::read_to_string(format!("{fleet}/{host}/fenced.log")).unwrap_or_default();
    let last = log
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Value>(line).ok());
    let rebooting = last.is_some_and(|line| {
        line["command"]
            .as_str()
            .is_some_and(|command| !command.starts_with("echo "))
    });
    let fence = std::fs::read_to_string(format!("{fleet}/{host}/fence.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok());
    let all_done = fence.is_some_and(|fence| {
        fence["steps"]
            .as_object()
            .is_some_and(|steps| steps.values().all(|step| !step["done"].is_null()))
    });
    rebooting && all_done && fenced(fleet, host).len() == 1
}

/// Waits until each of `hosts` is in its reboot with its fenced steps done.
pub(crate) fn wait_until_rebooting(fleet: &str, hosts: &[&str]) {
    wait_until("the run never reached its hosts' reboots", LIMIT, || {
        hosts
            .iter()
            .all(|host| rebooting_with_steps_done(fleet, host))
    });
}

/// SIGKILLs the controller `child` once each of `hosts` is in its reboot with its fenced steps
/// done: the run is left half done, with no outcome unknown.
pub(crate) fn kill_once_rebooting(mut child: std::process::Child, fleet: &str, hosts: &[&str]) {
    wait_until_rebooting(fleet, hosts);
    child
        .kill()
        .unwrap_or_else(|e| panic!("kill the controller: {e}"));
    let _ = child.wait();
}

pub(crate) fn fleet_of(lab: &Lab) -> String {
    let fleet = lab.path().join("fleet");
    // CAIRN_SIM_DIR must name a folder that exists (a typo is refused, never a fresh fleet).
    std::fs::create_dir_all(&fleet).unwrap_or_else(|e| panic!("{}: {e}", fleet.display()));
    fleet.to_string_lossy().into_owned()
}

/// The run id a `cairn runs` listing names first.
pub(crate) fn first_run(listing: &str) -> String {
    listing
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_run_on_the_store_is_read_back_from_another_folder() {
    let Some((_server, url)) = store("a_run_on_the_store_is_read_back_from_another_folder") else {
        return;
    };
    let (a, b) = (folder(), Lab::new());
    let fleet = fleet_of(&a);
    run(
        &a,
        &fleet,
        &["run", "book.rhai", "-i", "inv.toml", "--store", &url],
    )
    .succeeds();
    assert!(
        a.runs().is_empty(),
        "the run's folder is the store's working copy"
    );
    let runs = run(&b, &fleet, &["runs", "--store", &url]).succeeds();
    runs.stdout_has("done");
    let id = first_run(&runs.stdout);
    let journal = run(
        &b,
        &fleet,
        &["journal", &id, "n1", "--json", "--store", &url],
    )
    .succeeds();
    let kinds: Vec<String> = journal
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| r["type"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("header"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("host_end"),
        "{kinds:?}"
    );
    // The journal the other folder reads is the one the controller wrote, byte for byte.
    let written = a.path().join(format!(".cairn/store/runs/{id}/n1.jsonl"));
    let read = b.path().join(format!(".cairn/store/runs/{id}/n1.jsonl"));
    assert_eq!(std::fs::read(written).ok(), std::fs::read(read).ok());
    run(
        &b,
        &fleet,
        &["report", &id, "-o", "r.html", "--store", &url],
    )
    .succeeds();
    let page = std::fs::read_to_string(b.path().join("r.html")).unwrap_or_default();
    assert!(page.contains("n2"), "the report shows the run's hosts");
    let refused = b.cairn(&["runs", "--store", "mysql://db/cairn"]);
    assert_ne!(refused.code, 0);
    refused.stderr_has("`mysql://` is not a store");
    let secret = b.cairn(&[
        "runs",
        "--store",
        "postgresql://u:hunter2@/none?host=/nonexistent",
    ]);
    assert_ne!(secret.code, 0);
    secret.stderr_lacks("hunter2");
}

#[test]
fn a_second_run_needing_a_held_host_is_refused_naming_the_holder() {
    let Some((_server, url)) = store("a_second_run_needing_a_held_host_is_refused") else {
        return;
    };
    let (a, b) = (folder(), folder());
    let fleet = fleet_of(&a);
    let args = ["run", "book.rhai", "-i", "inv.toml", "--store", &url];
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    wait_until("the first run never echoed A", LIMIT, || {
        fenced(&fleet, "n1").len() == 1
    });
    let second = run(&b, &fleet, &args);
    ended(first).succeeds();
    let second = second.fails(2);
    second.stderr_has("n1 is held by run");
    second.stderr_has("(controller ");
    second.stderr_has("wait, or resume that run");
    assert_eq!(
        fenced(&fleet, "n1"),
        ["echo A", "echo B"],
        "only the first run acted"
    );
}

#[test]
fn a_killed_controllers_run_is_refused_while_its_session_lives_then_taken_over() {
    let Some((_server, url)) = store("a_killed_controllers_run_is_taken_over") else {
        return;
    };
    let (a, b) = (folder(), Lab::new());
    let fleet = fleet_of(&a);
    let ttl = "4";
    let args = run_on_store(&url, ttl);
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    kill_once_rebooting(first, &fleet, &["n1", "n2"]);
    let runs = run(&b, &fleet, &["runs", "--store", &url]);
    let id = first_run(&runs.stdout);
    let resume = ["resume", &id, "--store", &url, "--lease-ttl", ttl];
    let refused = run(&b, &fleet, &resume).fails(2);
    refused.stderr_has(&format!("run {id} is driven by controller "));
    assert!(refused.stderr.contains(", pid ") && refused.stderr.contains(", since "));
    std::thread::sleep(Duration::from_secs(5));
    let taken = run(&b, &fleet, &resume).succeeds();
    taken.stdout_has(&format!("took run {id} over from controller "));
    taken.stdout_has("took the host over from run");
    taken.stdout_has("2 done");
    each_change_once(&fleet, &["n1", "n2"], &["echo A", "echo B"]);
}

#[test]
fn a_stored_run_resumes_elsewhere_with_the_modules_it_imported_from_lib_folders() {
    let Some((_server, url)) = store("a_stored_run_resumes_with_its_modules") else {
        return;
    };
    let (a, b) = (Lab::new(), Lab::new());
    a.write(
        "book.rhai",
        "import \"steps\" as steps;\nimport \"extra\" as extra;\n\
         stage \"s\" on all {\n    steps::first();\n    reboot();\n    extra::second();\n}\n",
    );
    a.write("inv.toml", INVENTORY);
    // From the runbook's `lib/`, one importing another beside it, and from a `--lib` folder.
    a.write(
        "lib/steps.rhai",
        "import \"inner\" as inner;\nfn first() { inner::echo_a(); }\n",
    );
    a.write(
        "lib/inner.rhai",
        "fn echo_a() { run([\"echo\", \"A\"]); }\n",
    );
    let mods = Lab::new();
    mods.write("extra.rhai", "fn second() { run([\"echo\", \"B\"]); }\n");
    let fleet = fleet_of(&a);
    let lib = mods.path().to_string_lossy().into_owned();
    let args = [
        "--lib",
        &lib,
        "run",
        "book.rhai",
        "-i",
        "inv.toml",
        "--store",
        &url,
        "--lease-ttl",
        "4",
    ];
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    kill_once_rebooting(first, &fleet, &["n1", "n2"]);
    // No checkout and no `--lib` on the resuming side.
    std::fs::remove_dir_all(a.path().join("lib")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::remove_file(mods.path().join("extra.rhai")).unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(Duration::from_secs(5));
    let id = first_run(&run(&b, &fleet, &["runs", "--store", &url]).stdout);
    run(&b, &fleet, &["resume", &id, "--store", &url]).succeeds();
    each_change_once(&fleet, &["n1", "n2"], &["echo A", "echo B"]);
    let source = b.path().join(format!(".cairn/store/runs/{id}/source"));
    for module in ["lib/steps.rhai", "lib/inner.rhai", ".search/0/extra.rhai"] {
        assert!(
            source.join(module).is_file(),
            "{module} not in the working copy"
        );
    }
}

#[test]
fn a_restarted_server_stops_the_run_with_its_cause_and_a_resume_at_once_finishes_it() {
    let Some((mut server, url)) = store("a_restarted_server_stops_the_run") else {
        return;
    };
    let lab = folder();
    let fleet = fleet_of(&lab);
    // The default TTL (30 s): the resume below is not refused only because the stopped run
    // closed its session on a new connection.
    let args = ["run", "book.rhai", "-i", "inv.toml", "--store", &url];
    let first = spawn_piped(with_fleet(lab.command(&args), &fleet));
    wait_until_rebooting(&fleet, &["n1", "n2"]);
    server
        .restart_immediate()
        .unwrap_or_else(|e| panic!("restart: {e}"));
    let stopped = ended(first).fails(1);
    stopped.stderr_has("lost the connection to the store");
    let resumed = run(&lab, &fleet, &["resume", "--store", &url]).succeeds();
    each_change_once(&fleet, &["n1", "n2"], &["echo A", "echo B"]);
    for host in ["n1", "n2"] {
        let log = std::fs::read_to_string(format!("{fleet}/{host}/fenced.log")).unwrap_or_default();
        let reboots = log.matches("\"command\":\"reboot\"").count();
        assert_eq!(
            reboots, 1,
            "{host}: its reboot settled by boot id, not sent again:\n{log}\n{}\n{}",
            resumed.stdout, resumed.stderr
        );
    }
}
