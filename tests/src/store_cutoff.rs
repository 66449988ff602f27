//! A controller cut off from its store without a broken connection: a proxy in front of
//! PostgreSQL's socket stops forwarding and keeps every socket open, as a hung pooler or a
//! half-dead network path does. Nothing ever fails on such a connection, so the controller
//! must stop on its own within its session's time, act on no host after its deadline, and
//! leave the run for a resume that runs every change once.

use std::time::{Duration, Instant};

use cairn_tests::stalling_proxy::StallingProxy;
use cairn_tests::{Lab, Run, spawn_piped};

use crate::shared_store::{
    ended, fenced_by, first_run, fleet_of, folder, run, run_on_store, store, wait_until_rebooting,
    with_fleet,
};

#[test]
fn a_controller_cut_off_from_its_store_stops_by_its_deadline_and_a_resume_finishes_once() {
    let Some((server, direct)) = store("a_controller_cut_off_from_its_store") else {
        return;
    };
    let proxy = StallingProxy::to(server.socket_dir());
    let (base, _) = direct
        .split_once("?host=")
        .unwrap_or_else(|| panic!("a socket-folder URL: {direct}"));
    let through_proxy = format!("{base}?host={}", proxy.dir().display());
    let (a, b) = (folder(), Lab::new());
    let fleet = fleet_of(&a);
    let ttl = "4";
    let args = run_on_store(&through_proxy, ttl);
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    wait_until_rebooting(&fleet, &["n1", "n2"]);
    proxy.stall();
    let cut = Instant::now();
    let mut first = first;
    while first.try_wait().ok().flatten().is_none() && cut.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = cut.elapsed();
    eprintln!("the cut-off controller ended {took:?} after the cut");
    let _ = first.kill();
    let stopped = Run::from(first.wait_with_output().unwrap_or_else(|e| panic!("{e}"))).fails(1);
    stopped.stderr_has("did not answer within");
    // Its hosts' reboots (3 s) ended while it was cut off; it stopped by its session's time
    // (TTL 4 s), not at TCP's, and never ran the step after the reboot.
    assert!(took < Duration::from_secs(15), "it took {took:?} to stop");
    for host in ["n1", "n2"] {
        let commands: Vec<String> = fenced_by(&fleet, host)
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(commands, ["echo A"], "{host}: nothing after the cut");
    }
    // A resume on the store itself, once the cut-off session expired, finishes the run.
    std::thread::sleep(Duration::from_secs(5));
    let runs = run(&b, &fleet, &["runs", "--store", &direct]);
    let id = first_run(&runs.stdout);
    run(
        &b,
        &fleet,
        &["resume", &id, "--store", &direct, "--lease-ttl", ttl],
    )
    .succeeds();
    for host in ["n1", "n2"] {
        let by = fenced_by(&fleet, host);
        let commands: Vec<&str> = by.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(commands, ["echo A", "echo B"], "{host}: each change once");
        assert_ne!(by[0].1, by[1].1, "{host}: `echo B` run by the resume");
        let log = std::fs::read_to_string(format!("{fleet}/{host}/fenced.log")).unwrap_or_default();
        assert_eq!(
            log.matches("\"command\":\"reboot\"").count(),
            1,
            "{host}: its reboot settled by boot id, not sent again"
        );
    }
}

#[test]
fn a_command_whose_store_answers_nothing_from_the_start_stops_by_the_connect_limit() {
    let Some((server, direct)) = store("a_command_whose_store_answers_nothing") else {
        return;
    };
    let proxy = StallingProxy::to(server.socket_dir());
    proxy.stall();
    let (base, _) = direct
        .split_once("?host=")
        .unwrap_or_else(|| panic!("a socket-folder URL: {direct}"));
    let silent = format!("{base}?host={}&connect_timeout=2", proxy.dir().display());
    let a = folder();
    let fleet = fleet_of(&a);
    for args in [
        &run_on_store(&silent, "4")[..],
        &["runs", "--store", &silent],
    ] {
        let started = Instant::now();
        let mut command = spawn_piped(with_fleet(a.command(args), &fleet));
        // Killed past 30 s, so that a start that hangs fails the test instead of hanging it.
        while command.try_wait().ok().flatten().is_none()
            && started.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        let took = started.elapsed();
        let _ = command.kill();
        let refused = ended(command).fails(2);
        refused.stderr_has("cairn::store::connect_timeout");
        refused.stderr_has("did not answer within 2 s while");
        assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    }
    for host in ["n1", "n2"] {
        assert!(fenced_by(&fleet, host).is_empty(), "{host}: nothing ran");
    }
}

#[test]
fn a_command_whose_store_goes_silent_after_the_login_stops_by_its_limit_touching_no_host() {
    let Some((server, direct)) = store("a_command_whose_store_goes_silent_after_the_login") else {
        return;
    };
    let (base, _) = direct
        .split_once("?host=")
        .unwrap_or_else(|| panic!("a socket-folder URL: {direct}"));
    let a = folder();
    let fleet = fleet_of(&a);
    // Each command logs in through a proxy that stalls at one of its first statements: the
    // schema check, the session's opening, the listing of the runs, a standby's look.
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["runs"],
            "pg_advisory_xact_lock",
            "cairn::store::connect_timeout",
        ),
        (
            &["run", "book.rhai", "-i", "inv.toml", "--lease-ttl", "4"],
            "INSERT INTO cairn_session",
            "cairn::store::unanswered",
        ),
        (
            &["runs"],
            "SELECT id FROM cairn_run ORDER BY",
            "cairn::store::unanswered",
        ),
        (
            &["standby", "--once", "--poll", "1"],
            "WHERE s.expires_at <= now()",
            "cairn::store::unanswered",
        ),
        (
            &["resume", "--lease-ttl", "4"],
            "SELECT id FROM cairn_run ORDER BY",
            "cairn::store::no_answer",
        ),
    ];
    for (args, statement, code) in cases {
        let proxy = StallingProxy::to(server.socket_dir());
        proxy.stall_at_statement(statement);
        let silent = format!("{base}?host={}&connect_timeout=2", proxy.dir().display());
        let mut args = args.to_vec();
        args.extend(["--store", &silent]);
        let started = Instant::now();
        let mut command = spawn_piped(with_fleet(a.command(&args), &fleet));
        // Killed past 30 s, so that a command that hangs fails the test instead of hanging it.
        while command.try_wait().ok().flatten().is_none()
            && started.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        let took = started.elapsed();
        let _ = command.kill();
        let refused = ended(command);
        assert_ne!(refused.code, 0, "{args:?}: {}", refused.stderr);
        refused.stderr_has(code);
        refused.stderr_has("did not answer within");
        assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
    }
    for host in ["n1", "n2"] {
        assert!(fenced_by(&fleet, host).is_empty(), "{host}: nothing ran");
    }
}
