//! The fabric acceptance benchmark (issue 18): the shipped recipe
//! `runbooks/ib-fabric-acceptance.rhai` on its 100-node lab (`runbooks/labs/fabric-100node.toml`,
//! four leaves under one spine, virtual clocks), the full matrix of `send_bw` and `send_lat`
//! (99 rounds of 50 pairs each), run by the built `cairn`. It prints, per node count: the wall
//! time (target under 10 s at 100 nodes), the peak resident memory of the `cairn` process, the
//! wall time of the all-pairs stage alone, and for each test the duration `fabric::all_pairs`
//! planned before it started against the simulated duration it took (target within 10%).
//!
//! Smaller labs (`-- 24 48`, multiples of 4) are the shipped lab's four leaves cut shorter, to
//! show how the time grows with the number of nodes.
//!
//! Peak memory is GNU time's maximum resident set size (`/usr/bin/time -f %M`); without it the
//! column says `-`.
//!
//! `cargo bench -p cairn-tests --bench fabric [-- NODES...]` builds `cairn` in the bench's
//! profile (release) first.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use cairn_tests::{Lab, records};
use serde_json::Value;

const RECIPE: &str = "runbooks/ib-fabric-acceptance.rhai";
const LAB: &str = "runbooks/labs/fabric-100node.toml";
/// The shipped lab's four leaves' host ranges, in order.
const LEAVES: [&str; 4] = [
    "node[001-025]",
    "node[026-050]",
    "node[051-075]",
    "node[076-100]",
];
const GNU_TIME: &str = "/usr/bin/time";

fn main() {
    // Cargo passes `--bench`; any other argument is a node count.
    let mut sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| {
            a.parse()
                .unwrap_or_else(|_| panic!("`{a}` is not a node count (NODES... are numbers)"))
        })
        .collect();
    if sizes.is_empty() {
        sizes.push(100);
    }
    cairn_tests::build_cairn_for_bench();
    if !Path::new(GNU_TIME).exists() {
        eprintln!("note: no {GNU_TIME} (Debian package `time`): the peak RSS column is left empty");
    }
    println!("{RECIPE} on {LAB}: full matrix of send_bw and send_lat\n");
    println!(
        "| nodes | pairs per test | wall | all-pairs stage | peak RSS | send_bw planned | simulated | ratio | send_lat planned | simulated | ratio |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for nodes in sizes {
        let m = measure(nodes);
        let mut row = format!(
            "| {nodes} | {} | {:.1} s | {:.1} s | {} |",
            nodes * (nodes - 1) / 2,
            m.wall,
            m.stage_wall,
            m.peak_rss_kib.map_or_else(
                || "-".to_owned(),
                |k| format!("{:.0} MB", k as f64 / 1024.0)
            ),
        );
        for test in &m.tests {
            row.push_str(&format!(
                " {:.1} s | {:.1} s | {:.3} |",
                test.planned,
                test.took,
                test.took / test.planned
            ));
        }
        println!("{row}");
    }
}

/// One test's plan and simulated duration, seconds.
struct Timed {
    planned: f64,
    took: f64,
}

/// What one run showed.
struct Measured {
    wall: f64,
    stage_wall: f64,
    peak_rss_kib: Option<u64>,
    tests: Vec<Timed>,
}

fn measure(nodes: usize) -> Measured {
    let lab = Lab::shipped();
    if nodes != 100 {
        lab.write(LAB, &lab_of(&lab, nodes));
    }
    let args = ["run", RECIPE, "-i", LAB];
    let gnu_time = Path::new(GNU_TIME).exists();
    let started = Instant::now();
    let run = if gnu_time {
        cairn_tests::Run::from(
            Command::new(GNU_TIME)
                .args(["-f", "%M", "-o", "rss.txt"])
                .arg(cairn_tests::binary("cairn"))
                .args(args)
                .current_dir(lab.path())
                .env_remove("CAIRN_STATE_DIR")
                .output()
                .unwrap_or_else(|e| panic!("{GNU_TIME} cairn runs: {e}")),
        )
    } else {
        lab.cairn(&args)
    };
    let wall = started.elapsed().as_secs_f64();
    assert!(
        run.code == 0,
        "the run failed (exit {}):\n{}{}",
        run.code,
        run.stdout,
        run.stderr
    );
    let peak_rss_kib = std::fs::read_to_string(lab.path().join("rss.txt"))
        .ok()
        .and_then(|t| t.trim().lines().last()?.trim().parse().ok());
    let journal = lab.journal("controller");
    let at = |r: &Value| r["data"]["at"].as_f64().unwrap_or(0.0);
    let stage_start = records(&journal, "stage")
        .into_iter()
        .find(|r| r["data"]["name"] == "fabric")
        .map(at)
        .unwrap_or_else(|| panic!("the controller's journal has no stage \"fabric\""));
    let stage_end = records(&journal, "host_end")
        .last()
        .map_or(stage_start, |r| at(r));
    let tests = ["send_bw", "send_lat"]
        .iter()
        .map(|test| timed(&journal, test))
        .collect();
    Measured {
        wall,
        stage_wall: (stage_end - stage_start) / 1000.0,
        peak_rss_kib,
        tests,
    }
}

/// The plan and the simulated duration of `test` from its closing log line,
/// `fabric::all_pairs TEST: took T s (planned P s); ...`.
fn timed(journal: &[Value], test: &str) -> Timed {
    let prefix = format!("fabric::all_pairs {test}: took ");
    let line = records(journal, "log")
        .into_iter()
        .filter_map(|r| r["data"]["message"].as_str())
        .find_map(|m| m.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no log line `{prefix}...` in the controller's journal"));
    let number = |text: &str| -> f64 {
        text.split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number in `{line}`"))
    };
    let planned = line
        .split_once("(planned ")
        .map(|(_, rest)| number(rest))
        .unwrap_or_else(|| panic!("no plan in `{line}`"));
    Timed {
        planned,
        took: number(line),
    }
}

/// The shipped lab with each leaf cut to `nodes / 4` hosts.
fn lab_of(lab: &Lab, nodes: usize) -> String {
    assert!(
        nodes.is_multiple_of(4) && (8..=100).contains(&nodes),
        "{nodes} nodes: give a multiple of 4 from 8 to 100"
    );
    let mut text =
        std::fs::read_to_string(lab.path().join(LAB)).unwrap_or_else(|e| panic!("{LAB}: {e}"));
    let per_leaf = nodes / 4;
    for (i, range) in LEAVES.iter().enumerate() {
        assert!(text.contains(range), "{LAB} has no leaf `{range}`");
        let first = i * per_leaf + 1;
        let last = first + per_leaf - 1;
        text = text.replace(range, &format!("node[{first:03}-{last:03}]"));
    }
    text
}
