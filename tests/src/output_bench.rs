//! The cost of the terminal display: 1,000 simulated hosts (3 stages, 2 reboots, virtual
//! clocks, `--forks 256`, as the runtime's fleet benchmark in docs/performance.md) run by the
//! built `cairn`, its status area, colour and lines drawn to a pseudo-terminal, against the same
//! run with `--json` into a pipe. The two alternate, `ROUNDS` times each; the table shows the
//! median wall times and their ratio (target: terminal / json ≤ 1.05), plus the bytes each
//! wrote. `cargo bench -p cairn-tests --bench output [-- HOSTS]` builds `cairn` in the bench's
//! profile (release) first.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cairn_tests::{Lab, binary};

const ROUNDS: usize = 3;
const RUNBOOK: &str = "stage \"one\" on compute { run([\"echo\", \"x\"]); reboot(); }\n\
stage \"two\" on compute { publish(\"name\", host().name); reboot(); }\n\
stage \"three\" on compute { run([\"hostname\"], #{ idempotent: true }); }\n";

fn main() {
    let hosts: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1000);
    build_cairn();
    let mut terminal = Vec::new();
    let mut json = Vec::new();
    for round in 0..ROUNDS {
        terminal.push(on_a_pty(&lab(hosts)));
        json.push(into_a_pipe(&lab(hosts)));
        eprintln!(
            "round {}: terminal {:.2} s, json {:.2} s",
            round + 1,
            terminal[round].0.as_secs_f64(),
            json[round].0.as_secs_f64()
        );
    }
    let (t, tb) = median(&mut terminal);
    let (j, jb) = median(&mut json);
    println!("| {hosts} sim hosts, 3 stages, 2 reboots | median of {ROUNDS} | bytes written |");
    println!("| --- | --- | --- |");
    println!(
        "| status area on a pseudo-terminal | {:.2} s | {tb} |",
        t.as_secs_f64()
    );
    println!("| `--json` into a pipe | {:.2} s | {jb} |", j.as_secs_f64());
    println!(
        "| ratio terminal / json (target ≤ 1.05) | {:.3} | |",
        t.as_secs_f64() / j.as_secs_f64()
    );
}

fn median(runs: &mut [(Duration, usize)]) -> (Duration, usize) {
    runs.sort_by_key(|run| run.0);
    runs[runs.len() / 2]
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
fn on_a_pty(lab: &Lab) -> (Duration, usize) {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("stty cols 200 rows 50; exec \"$0\" \"$@\"")
        .arg(binary("cairn"))
        .args(ARGS)
        .current_dir(lab.path())
        .env_remove("CAIRN_STATE_DIR")
        .env_remove("NO_COLOR");
    let started = Instant::now();
    let mut session = rexpect::session::spawn_command(command, Some(600_000))
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let shown = session
        .exp_eof()
        .unwrap_or_else(|e| panic!("cairn on a terminal: {e}"));
    let wall = started.elapsed();
    assert!(
        shown.contains(" 0 failed, 0 stopped"),
        "the run failed:\n{shown}"
    );
    (wall, shown.len())
}

/// The run with `--json`, its output read from a pipe.
fn into_a_pipe(lab: &Lab) -> (Duration, usize) {
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
    (wall, output.stdout.len())
}

/// `cairn` built in this bench's profile, so the numbers are never a stale or debug binary's.
fn build_cairn() {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let profile_dir = exe.parent().and_then(Path::parent);
    let target_dir = profile_dir.and_then(Path::parent);
    let (Some(profile_dir), Some(target_dir)) = (profile_dir, target_dir) else {
        panic!("{} is not in a target folder", exe.display());
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args([
            "build",
            "--quiet",
            "-p",
            "cairn",
            "--bin",
            "cairn",
            "--target-dir",
        ])
        .arg(target_dir);
    if profile_dir.file_name().is_none_or(|name| name != "debug") {
        command.arg("--release");
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("cargo build: {e}"));
    assert!(status.success(), "cargo build of cairn failed");
}
