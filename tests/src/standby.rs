//! `cairn standby --store URL` through the binary (docs/fleet.md, "A standby"): it never takes
//! a live controller's run, finishes a SIGKILLed controller's run with each changing command
//! executed once, and two standbys watching two dead runs finish each once, no host driven by
//! both.

use std::process::Child;
use std::time::Duration;

use cairn_tests::{Lab, Run, send_signal, spawn_piped};

use crate::shared_store::{
    BOOK, LIMIT, fenced, fenced_by, first_run, fleet_of, folder, kill_once_rebooting, run,
    run_on_store, store, wait_until_rebooting, with_fleet,
};

/// The TTL of every session here: a dead controller's run is orphaned 4 s after its last
/// renewal.
const TTL: &str = "4";

/// Starts `cairn run` of the book in `lab` on the shared fleet and kills it (SIGKILL) once each
/// of `hosts` is in its reboot with its fenced steps done.
fn killed_half_way(lab: &Lab, fleet: &str, url: &str, hosts: &[&str]) {
    let controller = spawn_piped(with_fleet(lab.command(&run_on_store(url, TTL)), fleet));
    kill_once_rebooting(controller, fleet, hosts);
}

fn standby(lab: &Lab, fleet: &str, url: &str, once: bool) -> Child {
    let mut args = vec!["standby", "--store", url, "--lease-ttl", TTL, "--poll", "1"];
    if once {
        args.push("--once");
    }
    spawn_piped(with_fleet(lab.command(&args), fleet))
}

fn ended(child: Child) -> Run {
    Run::from(
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait: {e}")),
    )
}

/// The run ids `cairn runs --store` lists as done.
fn done_runs(lab: &Lab, fleet: &str, url: &str) -> Vec<String> {
    let listing = run(lab, fleet, &["runs", "--store", url]);
    listing
        .stdout
        .lines()
        .filter(|line| line.contains("done"))
        .map(first_run)
        .collect()
}

#[test]
fn a_standby_leaves_a_live_run_alone_and_finishes_a_killed_controllers_run() {
    let Some((_server, url)) = store("a_standby_finishes_a_killed_controllers_run") else {
        return;
    };
    let (a, b) = (folder(), Lab::new());
    let fleet = fleet_of(&a);
    let mut controller = spawn_piped(with_fleet(a.command(&run_on_store(&url, TTL)), &fleet));
    wait_until_rebooting(&fleet, &["n1", "n2"]);
    // Alive, its run is not the standby's to take.
    let alive = ended(standby(&b, &fleet, &url, true)).fails(3);
    alive.stdout_has("nothing to take over");
    controller
        .kill()
        .unwrap_or_else(|e| panic!("kill the controller: {e}"));
    let _ = controller.wait();
    let id = first_run(&run(&b, &fleet, &["runs", "--store", &url]).stdout);
    // Its session lives for the rest of its TTL: still nothing to take.
    ended(standby(&b, &fleet, &url, true)).fails(3);

    std::thread::sleep(Duration::from_secs(5));
    let taken = ended(standby(&b, &fleet, &url, true)).succeeds();
    assert!(
        taken
            .stdout
            .contains(&format!("standby: took run {id} over from controller "))
            && taken.stdout.contains("holding 2 host(s)"),
        "{}",
        taken.stdout
    );
    taken.stdout_has("took the host over from run");
    for host in ["n1", "n2"] {
        assert_eq!(
            fenced(&fleet, host),
            ["echo A", "echo B"],
            "{host}: each change once"
        );
    }
    assert_eq!(done_runs(&b, &fleet, &url), std::slice::from_ref(&id));
    // Done, and its session closed: a second look takes nothing.
    ended(standby(&b, &fleet, &url, true)).fails(3);
}

#[test]
fn two_standbys_finish_two_dead_runs_once_each_and_no_host_is_driven_by_both() {
    let Some((_server, url)) = store("two_standbys_finish_two_dead_runs") else {
        return;
    };
    let first = folder();
    let second = Lab::new();
    second.write("book.rhai", BOOK);
    second.write(
        "inv.toml",
        "[hosts.\"n[3-4]\"]\naddress = \"sim:linux?reboot_secs=3\"\n",
    );
    let fleet = fleet_of(&first);
    killed_half_way(&first, &fleet, &url, &["n1", "n2"]);
    killed_half_way(&second, &fleet, &url, &["n3", "n4"]);
    let (s1, s2) = (Lab::new(), Lab::new());
    let standbys = [
        standby(&s1, &fleet, &url, false),
        standby(&s2, &fleet, &url, false),
    ];
    let pids: Vec<String> = standbys
        .iter()
        .map(|child| child.id().to_string())
        .collect();
    let started = std::time::Instant::now();
    while done_runs(&s1, &fleet, &url).len() < 2 && started.elapsed() < LIMIT {
        std::thread::sleep(Duration::from_millis(200));
    }
    for child in &standbys {
        send_signal(child.id(), "TERM");
    }
    let outputs: Vec<Run> = standbys.into_iter().map(ended).collect();
    let listing = run(&s1, &fleet, &["runs", "--store", &url]).stdout;
    assert!(
        done_runs(&s1, &fleet, &url).len() == 2,
        "the standbys did not finish both runs:\n{listing}\n{outputs:#?}"
    );
    let mut took = Vec::new();
    for output in outputs {
        let output = output.succeeds();
        output.stdout_has("standby: stopped by a signal");
        took.extend(
            output
                .stdout
                .lines()
                .filter(|line| line.starts_with("standby: took run "))
                .map(str::to_owned),
        );
    }
    assert_eq!(took.len(), 2, "each run taken once: {took:?}");
    for hosts in [["n1", "n2"], ["n3", "n4"]] {
        let mut drivers = Vec::new();
        for host in hosts {
            let by = fenced_by(&fleet, host);
            let commands: Vec<&str> = by.iter().map(|(command, _)| command.as_str()).collect();
            assert_eq!(commands, ["echo A", "echo B"], "{host}: each change once");
            // `RUN@CONTROLLER:PID`: the resumed command's caller is a standby.
            let pid = by[1].1.rsplit(':').next().unwrap_or_default().to_owned();
            assert!(pids.contains(&pid), "{host}: {by:?} not by {pids:?}");
            drivers.push(pid);
        }
        assert_eq!(drivers[0], drivers[1], "one standby drives a run's hosts");
    }
}
