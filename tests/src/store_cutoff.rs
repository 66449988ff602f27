//! A controller cut off from its store without a broken connection: a proxy in front of
//! PostgreSQL's socket stops forwarding and keeps every socket open, as a hung pooler or a
//! half-dead network path does. Nothing ever fails on such a connection, so the controller
//! must stop on its own within its session's time, act on no host after its deadline, and
//! leave the run for a resume that runs every change once.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cairn_tests::{Lab, Run, spawn_piped};

use crate::shared_store::{
    fenced_by, first_run, fleet_of, folder, run, store, wait_until_rebooting, with_fleet,
};

/// PostgreSQL's socket file in a socket folder (port 5432).
const SOCKET: &str = ".s.PGSQL.5432";

/// A proxy from a socket folder of its own to the server's; once stalled, it reads and
/// forwards nothing more, and closes nothing.
struct StallingProxy {
    dir: tempfile::TempDir,
    stalled: Arc<AtomicBool>,
}

impl StallingProxy {
    fn to(server_dir: &Path) -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("proxy dir: {e}"));
        let listener = UnixListener::bind(dir.path().join(SOCKET))
            .unwrap_or_else(|e| panic!("proxy socket: {e}"));
        let stalled = Arc::new(AtomicBool::new(false));
        let upstream = server_dir.join(SOCKET);
        let flag = Arc::clone(&stalled);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = UnixStream::connect(&upstream) else {
                    continue;
                };
                for (from, to) in [(&client, &server), (&server, &client)] {
                    let (from, to) = (from.try_clone(), to.try_clone());
                    if let (Ok(from), Ok(to)) = (from, to) {
                        let flag = Arc::clone(&flag);
                        std::thread::spawn(move || pump(from, to, &flag));
                    }
                }
                // Both ends stay open for as long as the pumps hold them.
                std::mem::forget((client, server));
            }
        });
        Self { dir, stalled }
    }

    fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` until the proxy stalls; then holds both, reading nothing.
fn pump(mut from: UnixStream, mut to: UnixStream, stalled: &AtomicBool) {
    let _ = from.set_read_timeout(Some(Duration::from_millis(20)));
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if stalled.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_secs(3600));
            continue;
        }
        match from.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                if to.write_all(&buffer[..n]).is_err() {
                    return;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}

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
    let args = [
        "run",
        "book.rhai",
        "-i",
        "inv.toml",
        "--store",
        &through_proxy,
        "--lease-ttl",
        ttl,
    ];
    let first = spawn_piped(with_fleet(a.command(&args), &fleet));
    wait_until_rebooting(&fleet, &["n1", "n2"]);
    proxy.stall();
    let cut = Instant::now();
    let mut first = first;
    while first.try_wait().ok().flatten().is_none() && cut.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let took = cut.elapsed();
    let _ = first.kill();
    let stopped = Run::from(first.wait_with_output().unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(stopped.code, 1, "{}\n{}", stopped.stdout, stopped.stderr);
    assert!(
        stopped.stderr.contains("did not answer within"),
        "{}",
        stopped.stderr
    );
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
    let resumed = run(
        &b,
        &fleet,
        &["resume", &id, "--store", &direct, "--lease-ttl", ttl],
    );
    assert_eq!(resumed.code, 0, "{}\n{}", resumed.stdout, resumed.stderr);
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
