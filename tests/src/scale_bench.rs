//! The scale benchmark of the shared store (docs/fleet.md, docs/performance.md): one run of
//! many simulated hosts on a scratch PostgreSQL, driven by one controller, then cut between
//! several (`cairn run --controllers N` and `cairn join`), each controller a process of its
//! own on this machine with the simulated fleet in one folder they all reach.
//!
//! Measured per configuration: the wall time from the first controller's start to the last
//! one's end, each controller's peak resident memory (GNU time's `%M`), the database's size and
//! its journal rows. Checked: every controller exits 0 and the shares' recaps add up to every
//! host done.
//!
//! `cargo bench -p cairn-tests --bench scale [-- HOSTS CONTROLLERS,...]` (default 10000 hosts,
//! `1,4`). One controller of 10,000 hosts keeps 10,000 journals open: it fits under a hard
//! limit of 20,000 open files because a lease on the store is a row, not a locked file.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cairn_store_pg::scratch_server::ScratchServer;
use cairn_tests::Lab;

/// Two stages, so that every share waits for the others at a barrier.
const BOOK: &str = "stage \"a\" on all {\n    run([\"echo\", \"a\"]);\n}\nstage \"b\" on all {\n    run([\"echo\", \"b\"]);\n}\n";

/// What one configuration measured.
struct Measured {
    controllers: u32,
    wall: Duration,
    peak_kib: Vec<u64>,
    db_bytes: u64,
    journal_rows: u64,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let hosts: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let configs: Vec<u32> = args
        .get(1)
        .map_or("1,4", String::as_str)
        .split(',')
        .filter_map(|c| c.parse().ok())
        .collect();
    cairn_tests::build_cairn_for_bench();
    let Some(server) = ScratchServer::start_or_skip("the scale benchmark") else {
        std::process::exit(1);
    };
    let mut rows = Vec::new();
    for controllers in configs {
        eprintln!("{hosts} hosts, {controllers} controller(s) ...");
        rows.push(measure(&server, hosts, controllers));
    }
    println!("scale: one run of {hosts} simulated hosts on the shared store (2 stages)");
    println!(
        "{:>11}  {:>9}  {:>22}  {:>9}  {:>12}",
        "controllers", "wall (s)", "peak RSS per ctl (MiB)", "store MiB", "journal rows"
    );
    for row in &rows {
        let max = row.peak_kib.iter().max().copied().unwrap_or_default();
        let mean = row.peak_kib.iter().sum::<u64>() / row.peak_kib.len().max(1) as u64;
        println!(
            "{:>11}  {:>9.1}  {:>22}  {:>9.1}  {:>12}",
            row.controllers,
            row.wall.as_secs_f64(),
            format!(
                "max {:.0}, mean {:.0}",
                max as f64 / 1024.0,
                mean as f64 / 1024.0
            ),
            row.db_bytes as f64 / 1_048_576.0,
            row.journal_rows
        );
    }
}

/// Runs `hosts` hosts with `controllers` controllers on a database of their own.
fn measure(server: &ScratchServer, hosts: usize, controllers: u32) -> Measured {
    let url = server.new_database().redacted();
    let labs: Vec<Lab> = (0..controllers).map(|_| Lab::new()).collect();
    let first = &labs[0];
    first.write("book.rhai", BOOK);
    first.write(
        "inv.toml",
        &format!("[hosts.\"n[00001-{hosts:05}]\"]\naddress = \"sim:linux\"\n"),
    );
    let fleet = first.path().join("fleet");
    std::fs::create_dir_all(&fleet).unwrap_or_else(|e| panic!("{}: {e}", fleet.display()));
    let started = Instant::now();
    let mut args = vec!["run", "book.rhai", "-i", "inv.toml", "--store", &url, "-q"];
    let count = controllers.to_string();
    if controllers > 1 {
        args.extend(["--controllers", &count]);
    }
    let mut children = vec![controller(first, &fleet, &args)];
    if controllers > 1 {
        wait_for_shares(&url, controllers);
        for lab in &labs[1..] {
            children.push(controller(lab, &fleet, &["join", "--store", &url, "-q"]));
        }
    }
    let mut done = 0;
    for child in children {
        let output = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait: {e}"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "a controller failed: {}\n{}",
            stdout.lines().last().unwrap_or_default(),
            String::from_utf8_lossy(&output.stderr)
        );
        done += recap_done(&stdout);
    }
    let wall = started.elapsed();
    assert_eq!(
        done, hosts,
        "the shares' recaps do not add up to every host done"
    );
    let peak_kib = labs
        .iter()
        .map(|lab| {
            std::fs::read_to_string(lab.path().join("peak_kib"))
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or_default()
        })
        .collect();
    Measured {
        controllers,
        wall,
        peak_kib,
        db_bytes: sql(&url, "SELECT pg_database_size(current_database())"),
        journal_rows: sql(&url, "SELECT count(*) FROM cairn_journal"),
    }
}

/// A controller in `lab`'s folder on the shared `fleet`, its peak memory written to
/// `peak_kib` there.
fn controller(lab: &Lab, fleet: &Path, args: &[&str]) -> Child {
    let peak = lab.path().join("peak_kib");
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec /usr/bin/time -f %M -o '{}' \"$0\" \"$@\"",
            peak.display()
        ))
        .arg(cairn_tests::binary("cairn"))
        .args(args)
        .current_dir(lab.path())
        .env_remove("CAIRN_STATE_DIR")
        .env("CAIRN_SIM_DIR", fleet)
        .env("CAIRN_LEASE_DIR", lab.path().join(".leases"))
        .env("XDG_CONFIG_HOME", lab.path().join(".config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn a controller: {e}"))
}

/// Waits until the first controller has stored the run's shares, so that each join finds one.
fn wait_for_shares(url: &str, controllers: u32) {
    let until = Instant::now() + Duration::from_secs(600);
    while sql(url, "SELECT count(*) FROM cairn_fleet_share") < u64::from(controllers) {
        assert!(Instant::now() < until, "the shares were never stored");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The hosts a recap's last line (`run ID: N done, 0 failed, 0 stopped`) counts done.
fn recap_done(stdout: &str) -> usize {
    stdout
        .lines()
        .rev()
        .find_map(|line| {
            let (_, counts) = line.split_once(": ")?;
            counts.split_once(" done")?.0.trim().parse().ok()
        })
        .unwrap_or_default()
}

/// One number from `query` on the store, 0 when it cannot be read (the table not made yet).
fn sql(url: &str, query: &str) -> u64 {
    Command::new("psql")
        .args([url, "-tAc", query])
        .output()
        .ok()
        .and_then(|out| String::from_utf8_lossy(&out.stdout).trim().parse().ok())
        .unwrap_or_default()
}
