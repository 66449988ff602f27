//! The cost of the terminal display: 1,000 simulated hosts (3 stages, 2 reboots, virtual
//! clocks, `--forks 256`, as the runtime's fleet benchmark in docs/performance.md) run by the
//! built `cairn`, its status area, colour and lines drawn to a pseudo-terminal, against the same
//! run with `--json` into a pipe. The two alternate, `ROUNDS` times each. Each run's wall time
//! and CPU seconds (cairn's own, user and system, from this process's waited-for children) are
//! taken; the table shows the medians, and the median of each round's ratio (target: terminal /
//! json ≤ 1.05), which holds up better than a ratio of medians on a shared, noisy machine. `cargo bench -p cairn-tests --bench output [-- HOSTS]` builds `cairn` in the bench's
//! profile (release) first.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_tests::{Lab, binary};

const ROUNDS: usize = 5;
const RUNBOOK: &str = "stage \"one\" on compute { run([\"echo\", \"x\"]); reboot(); }\n\
stage \"two\" on compute { publish(\"name\", host().name); reboot(); }\n\
stage \"three\" on compute { run([\"hostname\"], #{ idempotent: true }); }\n";

fn main() {
    let hosts: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    cairn_tests::build_cairn_for_bench();
    let mut terminal = Vec::new();
    let mut json = Vec::new();
    for round in 0..ROUNDS {
        terminal.push(on_a_pty(&lab(hosts)));
        json.push(into_a_pipe(&lab(hosts)));
        let (t, j) = (&terminal[round], &json[round]);
        eprintln!(
            "round {}: terminal {:.2} s wall, {:.2} s CPU; json {:.2} s wall, {:.2} s CPU",
            round + 1,
            t.wall.as_secs_f64(),
            t.cpu,
            j.wall.as_secs_f64(),
            j.cpu
        );
    }
    let wall_ratio = median_of(
        terminal
            .iter()
            .zip(&json)
            .map(|(t, j)| t.wall.as_secs_f64() / j.wall.as_secs_f64()),
    );
    let cpu_ratio = median_of(terminal.iter().zip(&json).map(|(t, j)| t.cpu / j.cpu));
    let row = |runs: &[Measured]| {
        (
            median_of(runs.iter().map(|r| r.wall.as_secs_f64())),
            median_of(runs.iter().map(|r| r.cpu)),
            runs[0].bytes,
        )
    };
    let (tw, tc, tb) = row(&terminal);
    let (jw, jc, jb) = row(&json);
    println!(
        "| {hosts} sim hosts, 3 stages, 2 reboots, median of {ROUNDS} | wall | cairn CPU | bytes written |"
    );
    println!("| --- | --- | --- | --- |");
    println!("| status area on a pseudo-terminal | {tw:.2} s | {tc:.2} s | {tb} |");
    println!("| `--json` into a pipe | {jw:.2} s | {jc:.2} s | {jb} |");
    println!(
        "| ratio terminal / json, median of the rounds' (target ≤ 1.05) | {wall_ratio:.3} | {cpu_ratio:.3} | |"
    );
}

/// One run.
struct Measured {
    bytes: usize,
    cpu: f64,
    wall: Duration,
}

fn median_of(values: impl Iterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// CPU seconds (user and system) of the children this process has waited for.
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    // After `)`, 0-based from the state: cutime is field 13, cstime 14 (proc(5)).
    let ticks: u64 = (13..15).filter_map(|i| fields.get(i)).sum();
    ticks as f64 / 100.0
}

fn lab(hosts: usize) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", RUNBOOK);
    lab.write(
        "lab.toml",
        &format!(
            "[hosts.\"node[0000-{:04}]\"]\naddress = \"sim:linux?clock=virtual&reboot_secs=60\"\ngroups = [\"compute\"]\n",
            hosts - 1
        ),
    );
    lab
}

const ARGS: [&str; 6] = ["run", "book.rhai", "-i", "lab.toml", "--forks", "256"];

/// The run on a 200-column pseudo-terminal, its output read as it comes.
fn on_a_pty(lab: &Lab) -> Measured {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("stty cols 200 rows 50; exec \"$0\" \"$@\"")
        .arg(binary("cairn"))
        .args(ARGS)
        .current_dir(lab.path())
        .env_remove("CAIRN_STATE_DIR")
        .env_remove("NO_COLOR");
    let cpu = children_cpu();
    let started = Instant::now();
    let mut session = rexpect::session::spawn_command(command, Some(600_000))
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let shown = session
        .exp_eof()
        .unwrap_or_else(|e| panic!("cairn on a terminal: {e}"));
    let _ = session.process().wait();
    let wall = started.elapsed();
    assert!(
        shown.contains(" 0 failed, 0 stopped"),
        "the run failed:\n{shown}"
    );
    Measured {
        bytes: shown.len(),
        cpu: children_cpu() - cpu,
        wall,
    }
}

/// The run with `--json`, its output read from a pipe.
fn into_a_pipe(lab: &Lab) -> Measured {
    let cpu = children_cpu();
    let started = Instant::now();
    let output = lab
        .command(&[&ARGS[..], &["--json"]].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("cairn --json: {e}"));
    let wall = started.elapsed();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Measured {
        bytes: output.stdout.len(),
        cpu: children_cpu() - cpu,
        wall,
    }
}
