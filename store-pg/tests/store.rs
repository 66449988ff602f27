//! The shared store against a real PostgreSQL, one scratch server and database per test.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use cairn_runtime::lease::{Holder, LeaseStore, Taken};
use cairn_store_pg::scratch_server::ScratchServer;
use cairn_store_pg::{
    HostTake, LeasedRecord, PgLeases, PgStore, RunRecord, Session, StoreError, StoreUrl,
};

fn holder(run_id: &str) -> Holder {
    Holder {
        controller: "jump01".into(),
        pid: 4242,
        run_id: run_id.into(),
        since: 1_796_120_103_000,
        state_dir: "/lab/.cairn".into(),
    }
}

fn session(store: &mut PgStore, ttl_ms: u64) -> Session {
    let ttl = Duration::from_millis(ttl_ms);
    store
        .open_session("jump01", std::process::id(), ttl, ttl / 4)
        .expect("open a session")
}

fn db_message(error: postgres::Error) -> String {
    error
        .as_db_error()
        .map_or_else(|| error.to_string(), |db| db.message().to_owned())
}

/// This machine's clock in milliseconds: the scratch server runs here, on the same clock.
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn connect(url: &StoreUrl) -> PgStore {
    PgStore::connect(url).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn of_two_sessions_racing_for_one_host_exactly_one_wins() {
    let Some(server) = ScratchServer::start_or_skip("of_two_sessions_racing_for_one_host") else {
        return;
    };
    let url = server.new_database();
    for round in 0..5 {
        let host = format!("esx{round:02}");
        let barrier = Arc::new(Barrier::new(2));
        let racers: Vec<_> = ["run-a", "run-b"]
            .into_iter()
            .map(|run| {
                let (url, barrier, host) = (url.clone(), Arc::clone(&barrier), host.clone());
                std::thread::spawn(move || {
                    let mut store = connect(&url);
                    let session = session(&mut store, 30_000);
                    barrier.wait();
                    (run, store.take_host(&session, &host, &holder(run)).unwrap())
                })
            })
            .collect();
        let results: Vec<_> = racers
            .into_iter()
            .map(|racer| racer.join().unwrap())
            .collect();
        let winners: Vec<_> = results
            .iter()
            .filter(|(_, take)| matches!(take, HostTake::Free { .. }))
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        let winner = winners[0].0;
        let loser = results.iter().find(|(run, _)| *run != winner).unwrap();
        match &loser.1 {
            HostTake::Held { by: Some(by), .. } => assert_eq!(by.run_id, winner),
            other => panic!("round {round}: the loser saw {other:?}"),
        }
    }
}

#[test]
fn a_session_expires_by_the_database_clock_and_is_not_renewed_after() {
    let Some(server) = ScratchServer::start_or_skip("a_session_expires_by_the_database_clock")
    else {
        return;
    };
    let url = server.new_database();
    let mut store = connect(&url);
    let short = session(&mut store, 1_000);
    assert!(store.session_alive(&short).unwrap());
    assert!(short.may_act());
    store.renew(&short).expect("a live session renews");
    std::thread::sleep(Duration::from_millis(1_300));
    // The database's now() is past expires_at: dead, and it cannot come back.
    assert!(!store.session_alive(&short).unwrap());
    assert!(
        !short.may_act(),
        "the controller's own deadline is earlier still"
    );
    match store.renew(&short) {
        Err(StoreError::SessionExpired { session }) => assert_eq!(session, short.id()),
        other => panic!("an expired session was renewed: {other:?}"),
    }
    // Judged by the database: moving the session's expiry into the past ends it at once,
    // whatever the controller's clock says.
    let long = session(&mut store, 600_000);
    assert!(store.session_alive(&long).unwrap());
    store
        .client()
        .execute(
            "UPDATE cairn_session SET expires_at = now() - interval '1 second' WHERE id = $1",
            &[&long.id()],
        )
        .unwrap();
    assert!(!store.session_alive(&long).unwrap());
    assert!(long.may_act(), "its own clock has not run out");
    assert!(matches!(
        store.renew(&long),
        Err(StoreError::SessionExpired { .. })
    ));
}

#[test]
fn an_append_after_the_lease_moved_inserts_nothing_and_says_fenced() {
    let Some(server) = ScratchServer::start_or_skip("an_append_after_the_lease_moved") else {
        return;
    };
    let url = server.new_database();
    let mut old = connect(&url);
    let old_session = session(&mut old, 1_000);
    let HostTake::Free { epoch: old_epoch } =
        old.take_host(&old_session, "esx03", &holder("r1")).unwrap()
    else {
        panic!("a new host is free");
    };
    old.append(
        &old_session,
        "r1",
        "esx03",
        old_epoch,
        b"{\"type\":\"intent\"}",
    )
    .expect("the holder appends");
    std::thread::sleep(Duration::from_millis(1_300));

    let mut new = connect(&url);
    let new_session = session(&mut new, 30_000);
    let take = new.take_host(&new_session, "esx03", &holder("r1")).unwrap();
    let HostTake::TakenOver {
        epoch: new_epoch,
        from: Some(from),
    } = take
    else {
        panic!("an expired holder's host is taken over: {take:?}");
    };
    assert_eq!(from.run_id, "r1");
    assert!(new_epoch > old_epoch, "{new_epoch} after {old_epoch}");

    match old.append(
        &old_session,
        "r1",
        "esx03",
        old_epoch,
        b"{\"type\":\"outcome\"}",
    ) {
        Err(StoreError::Fenced { host, epoch, now }) => {
            assert_eq!((host.as_str(), epoch), ("esx03", old_epoch));
            assert!(
                now.contains(&format!(
                    "session {} holds it at epoch {new_epoch}",
                    new_session.id()
                )),
                "{now}"
            );
        }
        other => panic!("a stale controller appended: {other:?}"),
    }
    // Even with a live session: the epoch is what fences.
    let revived = session(&mut old, 30_000);
    assert!(matches!(
        old.append(&revived, "r1", "esx03", new_epoch, b"x"),
        Err(StoreError::Fenced { .. })
    ));
    new.append(
        &new_session,
        "r1",
        "esx03",
        new_epoch,
        b"{\"type\":\"resume\"}",
    )
    .expect("the new holder appends");
    let records = new.records("r1", "esx03").unwrap();
    assert_eq!(
        records,
        vec![
            b"{\"type\":\"intent\"}".to_vec(),
            b"{\"type\":\"resume\"}".to_vec()
        ]
    );
}

#[test]
fn appends_sent_together_are_each_fenced_by_their_own_lease() {
    let Some(server) = ScratchServer::start_or_skip("appends_sent_together") else {
        return;
    };
    let url = server.new_database();
    let mut store = connect(&url);
    let session = session(&mut store, 30_000);
    let mut epoch_of = |host: &str| match store.take_host(&session, host, &holder("r1")).unwrap() {
        HostTake::Free { epoch } => epoch,
        other => panic!("a new host is free: {other:?}"),
    };
    let (one, two) = (epoch_of("esx01"), epoch_of("esx02"));
    let leased = |journal: &str, host: &str, epoch: i64, record: &[u8]| LeasedRecord {
        session: session.id(),
        run_id: "r1".into(),
        journal: journal.into(),
        host: host.into(),
        epoch,
        record: record.to_vec(),
    };
    let answers = store
        .append_batch(&[
            // A journal named apart from its host's identity (two inventories, one host).
            leased("n1", "esx01", one, b"one"),
            // An epoch this session does not hold: fenced, alone.
            leased("esx02", "esx02", two + 1, b"stale"),
        ])
        .expect("the statement runs");
    assert!(answers[0].is_ok(), "{:?}", answers[0]);
    match &answers[1] {
        Err(StoreError::Fenced { host, epoch, .. }) => {
            assert_eq!((host.as_str(), *epoch), ("esx02", two + 1));
        }
        other => panic!("a stale epoch appended: {other:?}"),
    }
    assert_eq!(store.records("r1", "n1").unwrap(), vec![b"one".to_vec()]);
    assert!(store.records("r1", "esx02").unwrap().is_empty());
}

#[test]
fn a_host_epoch_only_grows() {
    let Some(server) = ScratchServer::start_or_skip("a_host_epoch_only_grows") else {
        return;
    };
    let url = server.new_database();
    let mut store = connect(&url);
    let first = session(&mut store, 30_000);
    let before_ms = now_ms();
    let mut epochs = Vec::new();
    for run in ["r1", "r2", "r3"] {
        let HostTake::Free { epoch } = store.take_host(&first, "n1", &holder(run)).unwrap() else {
            panic!("a given-back host is free");
        };
        // Taking it again for the same run keeps the epoch.
        assert_eq!(
            store.take_host(&first, "n1", &holder(run)).unwrap(),
            HostTake::Free { epoch }
        );
        epochs.push(epoch);
        assert!(store.release_host(&first, "n1", epoch).unwrap());
    }
    let expiring = session(&mut store, 300);
    let HostTake::Free { epoch } = store.take_host(&expiring, "n1", &holder("r4")).unwrap() else {
        panic!()
    };
    epochs.push(epoch);
    std::thread::sleep(Duration::from_millis(500));
    let HostTake::TakenOver { epoch, .. } = store.take_host(&first, "n1", &holder("r5")).unwrap()
    else {
        panic!()
    };
    epochs.push(epoch);
    // Each take is above the last and at least its time in milliseconds, as a folder lease's.
    assert!(epochs.windows(2).all(|w| w[0] < w[1]), "{epochs:?}");
    assert!(epochs[0] >= before_ms, "{epochs:?} from {before_ms}");

    let lowered = store
        .client()
        .execute("UPDATE cairn_lease SET epoch = 1 WHERE host = 'n1'", &[]);
    let message = db_message(lowered.expect_err("an epoch was lowered"));
    assert!(message.contains("only grows"), "{message}");
    let deleted = store
        .client()
        .execute("DELETE FROM cairn_lease WHERE host = 'n1'", &[]);
    let message = db_message(deleted.expect_err("a lease row was deleted"));
    assert!(message.contains("never deleted"), "{message}");
    let last = epochs.last().copied();
    assert_eq!(
        store.lease_of("n1").unwrap(),
        last.map(|epoch| (Some(first.id()), epoch))
    );
}

#[test]
fn an_immediate_restart_of_the_server_is_a_clean_error_then_a_reconnect() {
    let Some(mut server) = ScratchServer::start_or_skip("an_immediate_restart_of_the_server")
    else {
        return;
    };
    let url = server.new_database();
    let mut store = connect(&url);
    let session = session(&mut store, 60_000);
    let HostTake::Free { epoch } = store.take_host(&session, "n1", &holder("r1")).unwrap() else {
        panic!()
    };
    store.append(&session, "r1", "n1", epoch, b"one").unwrap();
    let before = server.pid();
    server
        .restart_immediate()
        .expect("pg_ctl restart -m immediate");
    assert_ne!(server.pid(), before);

    let error = store
        .append(&session, "r1", "n1", epoch, b"lost")
        .expect_err("an append on a killed connection");
    assert!(error.is_lost(), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("lost the connection to the store"),
        "{message}"
    );
    assert!(message.contains("append to a journal"), "{message}");

    store
        .reconnect()
        .expect("the restarted server takes a new connection");
    store.append(&session, "r1", "n1", epoch, b"two").unwrap();
    // The committed append survived the crash's recovery; the failed one was never applied.
    assert_eq!(
        store.records("r1", "n1").unwrap(),
        vec![b"one".to_vec(), b"two".to_vec()]
    );
}

/// Set in the child process the SIGSTOP test starts: the store to hold a host in.
const CHILD_URL: &str = "CAIRN_PG_TEST_HOLDER_URL";

#[test]
fn a_holder_stopped_past_its_ttl_is_fenced_when_it_wakes() {
    if let Ok(url) = std::env::var(CHILD_URL) {
        return stopped_holder(&url);
    }
    let Some(server) = ScratchServer::start_or_skip("a_holder_stopped_past_its_ttl") else {
        return;
    };
    let url = server.new_database();
    // The holder is this test binary again, running only this test as the child.
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_holder_stopped_past_its_ttl_is_fenced_when_it_wakes",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_URL, url.redacted())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = move || loop {
        let line = lines.next().expect("the holder ended early").unwrap();
        // libtest may print the test's name on the same line before it.
        if let Some((_, said)) = line.split_once("holder: ") {
            return said.to_owned();
        }
    };
    let held = next();
    let held_epoch: i64 = held
        .strip_prefix("held epoch ")
        .and_then(|rest| rest.strip_suffix(", appended"))
        .and_then(|epoch| epoch.parse().ok())
        .unwrap_or_else(|| panic!("{held}"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();

    // Its TTL is 2 s, renewed every 500 ms, while it was running.
    std::thread::sleep(Duration::from_millis(3_000));
    let mut standby = connect(&url);
    let standby_session = session(&mut standby, 30_000);
    let taken = standby
        .take_host(&standby_session, "esx07", &holder("r2"))
        .unwrap();
    let HostTake::TakenOver { epoch, .. } = taken else {
        panic!("the stopped holder's host was not taken over: {taken:?}")
    };
    assert!(epoch > held_epoch, "{epoch} after {held_epoch}");

    rustix::process::kill_process(pid, rustix::process::Signal::CONT).unwrap();
    writeln!(child.stdin.as_mut().unwrap(), "act").unwrap();
    assert_eq!(next(), "may act: false");
    let append = next();
    assert!(append.starts_with("append: fenced"), "{append}");
    let renew = next();
    assert!(
        renew.starts_with("renew: the controller session"),
        "{renew}"
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(
        standby.records("r1", "esx07").unwrap(),
        vec![b"first".to_vec()]
    );
}

/// The child's side: hold `esx07`, append once, wait (stopped) for a line, then try to act.
fn stopped_holder(url: &str) {
    let url = StoreUrl::parse(url).unwrap();
    let mut store = connect(&url);
    let session = store
        .open_session(
            "stopped",
            std::process::id(),
            Duration::from_secs(2),
            Duration::from_millis(500),
        )
        .unwrap();
    let heartbeat =
        cairn_store_pg::Heartbeat::start(&url, &session, Duration::from_millis(500)).unwrap();
    let HostTake::Free { epoch } = store.take_host(&session, "esx07", &holder("r1")).unwrap()
    else {
        panic!()
    };
    store
        .append(&session, "r1", "esx07", epoch, b"first")
        .unwrap();
    println!("holder: held epoch {epoch}, appended");
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    println!("holder: may act: {}", session.may_act());
    match store.append(&session, "r1", "esx07", epoch, b"after the stop") {
        Ok(seq) => println!("holder: append: written as {seq}"),
        Err(error) => println!("holder: append: {error}"),
    }
    match store.renew(&session) {
        Ok(()) => println!("holder: renew: renewed"),
        Err(error) => println!("holder: renew: {error}"),
    }
    drop(heartbeat);
}

#[test]
fn a_run_is_stored_whole_for_another_controller() {
    let Some(server) = ScratchServer::start_or_skip("a_run_is_stored_whole") else {
        return;
    };
    let url = server.new_database();
    let mut store = connect(&url);
    let session = session(&mut store, 30_000);
    let run = RunRecord {
        id: "20261201-101500".into(),
        runbook_path: "firmware.rhai".into(),
        runbook: b"stage(\"x\", || {});\n".to_vec(),
        runbook_name: Some("recipes/x/firmware.rhai".into()),
        modules: vec![
            ("lib/a.rhai".into(), b"fn a() {}".to_vec()),
            ("lib/b.rhai".into(), vec![0xff, 0x00, 0x01]),
        ],
        inventory: b"[hosts.esx01]\naddress = \"10.0.0.1\"\n".to_vec(),
        params: serde_json::json!({"rolling": "25%", "fw": {"version": "28.39.1002"}}),
    };
    store.save_run(&session, &run).unwrap();
    let mut other = connect(&url);
    assert_eq!(other.load_run(&run.id).unwrap(), Some(run.clone()));
    assert_eq!(other.load_run("20990101-000000").unwrap(), None);
    let again = store
        .save_run(&session, &run)
        .expect_err("one run id is stored once");
    assert!(again.to_string().contains("store the run"), "{again}");
}

#[test]
fn the_schema_is_created_once_and_a_newer_one_is_refused() {
    let Some(server) = ScratchServer::start_or_skip("the_schema_is_created_once") else {
        return;
    };
    let url = server.new_database();
    let racers: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || PgStore::connect(&url).map(|_| ()))
        })
        .collect();
    for racer in racers {
        racer
            .join()
            .unwrap()
            .expect("concurrent connects all migrate cleanly");
    }
    let mut store = connect(&url);
    let versions: i64 = store
        .client()
        .query_one("SELECT count(*) FROM cairn_schema", &[])
        .unwrap()
        .get(0);
    assert_eq!(versions, 1);
    store
        .client()
        .execute("UPDATE cairn_schema SET version = 99", &[])
        .unwrap();
    match PgStore::connect(&url) {
        Err(StoreError::SchemaTooNew { found: 99, known }) => {
            assert_eq!(known, cairn_store_pg::SCHEMA_VERSION)
        }
        other => panic!("a newer schema was used: {other:?}"),
    }
}

#[test]
fn the_runtime_lease_store_holds_a_host_at_an_epoch_and_gives_it_back() {
    let Some(server) = ScratchServer::start_or_skip("the_runtime_lease_store") else {
        return;
    };
    let url = server.new_database();
    let before_ms = now_ms();
    let leases = |controller: &str| {
        let mut store = connect(&url);
        let session = store
            .open_session(
                controller,
                1,
                Duration::from_secs(30),
                Duration::from_secs(5),
            )
            .unwrap();
        PgLeases::new(store, session)
    };
    let (ours, theirs) = (leases("jump01"), leases("jump02"));
    let Taken::Free(held) = ours.try_take("ssh://esx03:22", &holder("r1")).unwrap() else {
        panic!("a new host is free")
    };
    let first = held.epoch().unwrap_or(0);
    assert!(first >= before_ms as u64, "{first} from {before_ms}");
    match theirs.try_take("ssh://esx03:22", &holder("r2")).unwrap() {
        Taken::Held(by) => assert_eq!(
            by.describe(),
            "run r1 (controller jump01, pid 4242, since 10:15:03)"
        ),
        other => panic!("a held host was taken: {other:?}"),
    }
    drop(held);
    let Taken::Free(held) = theirs.try_take("ssh://esx03:22", &holder("r2")).unwrap() else {
        panic!("a given-back host is free")
    };
    assert!(
        held.epoch().unwrap_or(0) > first,
        "{:?} after {first}",
        held.epoch()
    );
}

#[test]
fn an_unreachable_store_is_a_clear_error() {
    let url =
        StoreUrl::parse("postgresql://cairn:secret@/fleet?host=/nonexistent/cairn-socket").unwrap();
    let error = PgStore::connect(&url).expect_err("nothing listens there");
    let message = error.to_string();
    assert!(
        message.starts_with("cannot connect to the store postgresql://cairn:***@/fleet"),
        "{message}"
    );
    assert!(!message.contains("secret"), "{message}");
}

fn record(id: &str) -> RunRecord {
    RunRecord {
        id: id.into(),
        runbook_path: "book.rhai".into(),
        runbook: b"stage \"s\" on all {}\n".to_vec(),
        runbook_name: None,
        modules: Vec::new(),
        inventory: b"[hosts.n1]\naddress = \"sim:linux\"\n".to_vec(),
        params: serde_json::json!({}),
    }
}

#[test]
fn a_standby_claims_only_runs_a_dead_controller_left_holding_hosts_and_two_take_different_ones() {
    let Some(server) = ScratchServer::start_or_skip("a_standby_claims_only_orphaned_runs") else {
        return;
    };
    let url = server.new_database();
    let mut dead = connect(&url);
    let dead_session = session(&mut dead, 300);
    // r1 and r2 hold a host each; r3's hosts all ended (no lease left).
    for (run, host) in [("r1", "n1"), ("r2", "n2"), ("r3", "")] {
        dead.save_run(&dead_session, &record(run)).unwrap();
        if !host.is_empty() {
            dead.take_host(&dead_session, host, &holder(run)).unwrap();
        }
    }
    // r4's controller ended its run and closed its session: its lease was given back.
    let mut ended = connect(&url);
    let ended_session = session(&mut ended, 300);
    ended.save_run(&ended_session, &record("r4")).unwrap();
    ended
        .take_host(&ended_session, "n4", &holder("r4"))
        .unwrap();
    ended.close_session(&ended_session).unwrap();
    // r5's controller is alive.
    let mut live = connect(&url);
    let live_session = session(&mut live, 30_000);
    live.save_run(&live_session, &record("r5")).unwrap();
    live.take_host(&live_session, "n5", &holder("r5")).unwrap();
    std::thread::sleep(Duration::from_millis(500));

    let orphans: Vec<(String, i64, i64)> = live
        .orphaned_runs()
        .unwrap()
        .into_iter()
        .map(|orphan| (orphan.id, orphan.driver.session, orphan.hosts_held))
        .collect();
    let dead_id = dead_session.id();
    assert_eq!(
        orphans,
        [("r1".into(), dead_id, 1), ("r2".into(), dead_id, 1)]
    );

    let mut first = connect(&url);
    let first_session = session(&mut first, 30_000);
    let mut second = connect(&url);
    let second_session = session(&mut second, 30_000);
    // The first claimer has r1 locked (its claim not committed) when the second claims.
    let mut transaction = first.client().transaction().unwrap();
    transaction
        .query("SELECT id FROM cairn_run WHERE id = 'r1' FOR UPDATE", &[])
        .unwrap();
    let started = std::time::Instant::now();
    let second_claim = second.claim_orphaned_run(&second_session).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the second claimer waited for the first"
    );
    assert_eq!(second_claim.map(|orphan| orphan.id).as_deref(), Some("r2"));
    transaction.commit().unwrap();
    let first_claim = first.claim_orphaned_run(&first_session).unwrap();
    assert_eq!(first_claim.map(|orphan| orphan.id).as_deref(), Some("r1"));
    // Claimed runs have a live driver now: nothing is left, for either.
    assert_eq!(first.claim_orphaned_run(&first_session).unwrap(), None);
    assert_eq!(second.claim_orphaned_run(&second_session).unwrap(), None);
    assert_eq!(
        first.run_driver("r2").unwrap().map(|driver| driver.session),
        Some(second_session.id())
    );
    // An expired claimer claims nothing.
    let mut late = connect(&url);
    let late_session = session(&mut late, 100);
    std::thread::sleep(Duration::from_millis(300));
    assert!(matches!(
        late.claim_orphaned_run(&late_session),
        Err(StoreError::SessionExpired { .. })
    ));
}

#[test]
fn a_run_id_is_reserved_for_one_controller_only() {
    let Some(server) = ScratchServer::start_or_skip("a_run_id_is_reserved_once") else {
        return;
    };
    let url = server.new_database();
    let mut first = connect(&url);
    let first_session = session(&mut first, 30_000);
    let mut second = connect(&url);
    let second_session = session(&mut second, 30_000);
    assert!(
        first
            .reserve_run_id(&first_session, "20261203-121531")
            .unwrap()
    );
    // The same second on another controller: taken, so it goes on to the next id.
    assert!(
        !second
            .reserve_run_id(&second_session, "20261203-121531")
            .unwrap()
    );
    assert!(
        second
            .reserve_run_id(&second_session, "20261203-121531-2")
            .unwrap()
    );
    // A run stored before ids were reserved keeps its id too.
    first
        .save_run(&first_session, &record("20261130-080000"))
        .unwrap();
    assert!(
        !second
            .reserve_run_id(&second_session, "20261130-080000")
            .unwrap()
    );
    // Another controller's run.json is never overwritten.
    assert!(
        first
            .set_meta(&first_session, "20261130-080000", b"{}")
            .unwrap()
    );
    assert!(
        !second
            .set_meta(&second_session, "20261130-080000", b"{}")
            .unwrap()
    );
}

#[test]
fn hosts_taken_together_are_each_free_held_or_taken_over_as_one_by_one() {
    let Some(server) = ScratchServer::start_or_skip("hosts_taken_together") else {
        return;
    };
    let url = server.new_database();
    let mut store = connect(&url);
    let other = session(&mut store, 30_000);
    let HostTake::Free { .. } = store.take_host(&other, "n2", &holder("r1")).unwrap() else {
        panic!("n2 is free");
    };
    let expiring = session(&mut store, 300);
    let HostTake::Free { .. } = store.take_host(&expiring, "n3", &holder("r2")).unwrap() else {
        panic!("n3 is free");
    };
    std::thread::sleep(Duration::from_millis(500));
    let mine = session(&mut store, 30_000);
    let taken = store
        .take_hosts(&mine, &["n1", "n2", "n3"], &holder("r3"))
        .unwrap();
    assert!(
        matches!(
            taken.as_slice(),
            [
                HostTake::Free { .. },
                HostTake::Held { session, .. },
                HostTake::TakenOver { from: Some(from), .. },
            ] if *session == other.id() && from.run_id == "r2"
        ),
        "{taken:?}"
    );
    // Through the runtime's trait, in one call: the same answers, and the held one named.
    let leases = PgLeases::new(connect(&url), session(&mut store, 30_000));
    let again = leases.try_take_each(&["n4", "n2"], &holder("r4")).unwrap();
    assert!(
        matches!(again.as_slice(), [Taken::Free(_), Taken::Held(by)] if by.run_id == "r1"),
        "free then held"
    );
}
