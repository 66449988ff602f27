//! The fan-out benchmark of the shared store (docs/performance.md, "Fan-out against the state
//! folder"): one stage of several `run(["echo", ...])` on many simulated hosts at once, the same
//! `cairn run` with and without `--store` on a scratch PostgreSQL, run in turn (folder, store,
//! folder, store ...) so that the ratio of each pair is taken on the machine as it was then.
//!
//! Printed: each store's wall time, min/median/max, and the store/folder ratio of the pairs.
//! Checked: every run exits 0 with every host done.
//!
//! `cargo bench -p cairn-tests --bench fanout [-- HOSTS COMMANDS PAIRS]` (default 64 hosts, 10
//! commands, 9 pairs).

use std::process::Command;
use std::time::{Duration, Instant};

use cairn_store_pg::scratch_server::ScratchServer;
use cairn_tests::Lab;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let arg = |n: usize, default: usize| args.get(n).copied().unwrap_or(default);
    let (hosts, commands, pairs) = (arg(0, 64), arg(1, 10), arg(2, 9));
    cairn_tests::build_cairn_for_bench();
    let Some(server) = ScratchServer::start_or_skip("the fan-out benchmark") else {
        std::process::exit(1);
    };
    let url = server.new_database().redacted();
    let lab = Lab::new();
    let book: String = (0..commands)
        .map(|n| format!("    run([\"echo\", \"{n}\"]);\n"))
        .collect();
    lab.write(
        "book.rhai",
        &format!("stage \"fan-out\" on all {{\n{book}}}\n"),
    );
    lab.write(
        "inv.toml",
        &format!("[hosts.\"n[001-{hosts:03}]\"]\naddress = \"sim:linux\"\n"),
    );
    // One of each first, not counted: the binary and the server warm.
    run(&lab, None, hosts);
    run(&lab, Some(&url), hosts);
    let (mut folder, mut store, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..pairs {
        let f = run(&lab, None, hosts);
        let s = run(&lab, Some(&url), hosts);
        ratios.push(s.as_secs_f64() / f.as_secs_f64());
        folder.push(f.as_secs_f64());
        store.push(s.as_secs_f64());
    }
    println!(
        "fan-out: {hosts} simulated hosts, one stage of {commands} commands, {pairs} pairs (folder, store)"
    );
    println!("{:>20}  {:>8}  {:>8}  {:>8}", "", "min", "median", "max");
    for (name, values) in [
        ("state folder (s)", &mut folder),
        ("shared store (s)", &mut store),
        ("store / folder", &mut ratios),
    ] {
        values.sort_by(f64::total_cmp);
        let median = values[values.len() / 2];
        let (min, max) = (values[0], values[values.len() - 1]);
        println!("{name:>20}  {min:>8.2}  {median:>8.2}  {max:>8.2}");
    }
}

/// One run from a fresh state folder, on the store at `url` or on the state folder alone; its wall
/// time, from the process's start to its exit.
fn run(lab: &Lab, url: Option<&str>, hosts: usize) -> Duration {
    let state = lab.path().join(".cairn");
    let _ = std::fs::remove_dir_all(&state);
    let mut command = Command::new(cairn_tests::binary("cairn"));
    command
        .args(["run", "book.rhai", "-i", "inv.toml", "-q"])
        .current_dir(lab.path())
        .env_remove("CAIRN_STATE_DIR")
        .env("CAIRN_LEASE_DIR", lab.path().join(".leases"))
        .env("XDG_CONFIG_HOME", lab.path().join(".config"));
    if let Some(url) = url {
        command.args(["--store", url]);
    }
    let started = Instant::now();
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("run cairn: {e}"));
    let wall = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains(&format!("{hosts} done, 0 failed")),
        "a run failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    wall
}
