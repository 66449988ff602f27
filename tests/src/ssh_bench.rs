//! The SSH benchmark: what cairn and its host fence cost over SSH, on real shells behind real
//! sshd servers on loopback (the lab's hosts without `ForceCommand`: commands run for real on
//! this machine, `fence.sh` under the login user's `sh`), so the figures are the ones users get.
//!
//! 1. **One command**, one lab host: the same `echo` as a bare channel and as the fenced line
//!    cairn sends, alternated on one session, `PER_COMMAND` of each: median and p90 per
//!    command and their difference; then the same while a writer fills a file in the host's
//!    file system (a checkpoint being written), which a whole-system `sync` would wait for.
//! 2. **The workload**: `COMMANDS` `run([...])` per host on N hosts (each its own `fence_dir`:
//!    every lab host is this machine), three ways interleaved pair by pair: cairn with the
//!    fence, cairn with `fence = false`, and the floor (one ssh2 session per host, one channel
//!    per command, a thread per host, no interpreter, no journal). Each pair's ratio to the
//!    floor, min/median/max over the pairs.
//!
//! `cargo bench -p cairn-tests --bench ssh [-- 16,64]`; `CAIRN_BENCH_PAIRS` pairs per size
//! (default 9). The bench builds `cairn` in its own profile (release, for `cargo bench`).

#[allow(dead_code, unreachable_pub)]
mod ssh_lab;

use std::io::Read;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cairn_runtime::fence::{Fence, FencePlace};
use ssh_lab::SshLab;

const COMMANDS: usize = 10;
const PER_COMMAND: usize = 200;
const KEX: &str = "curve25519-sha256";

fn main() {
    if !Path::new(ssh_lab::SSHD).exists() {
        eprintln!("SKIPPED ssh bench: {} is absent", ssh_lab::SSHD);
        return;
    }
    cairn_tests::build_cairn_for_bench();
    println!("load average at the start: {}", load_average());
    one_command_table();
    println!();
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|list| list.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![16, 64]);
    let pairs: usize = std::env::var("CAIRN_BENCH_PAIRS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(9);
    println!(
        "| hosts | pairs | floor s (median) | fence on s | fence off s | fence on / floor (min, median, max) | fence off / floor (min, median, max) |"
    );
    println!("|---:|---:|---:|---:|---:|---|---|");
    for n in sizes {
        workload_row(n, pairs);
    }
    println!("load average at the end: {}", load_average());
}

/// `n` real-shell hosts, each fence in its own folder, keys known; then `pairs` rounds of the
/// three ways, their order turned each round.
fn workload_row(n: usize, pairs: usize) {
    let mut lab = SshLab::start(0, "");
    for i in 1..=n {
        lab.add_real_host(&format!("h{i:02}"));
    }
    write_inventories(&lab);
    learn_keys(&lab);
    let mut walls: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let ways: [fn(&SshLab) -> Duration; 3] = [cairn_fenced, cairn_unfenced, floor];
    for round in 0..pairs {
        for k in 0..3 {
            let way = (round + k) % 3;
            walls[way].push(ways[way](&lab).as_secs_f64());
        }
    }
    let ratios = |way: usize| {
        let mut r: Vec<f64> = walls[way]
            .iter()
            .zip(&walls[2])
            .map(|(w, f)| w / f)
            .collect();
        r.sort_by(f64::total_cmp);
        format!(
            "{:.2}, {:.2}, {:.2}",
            r.first().copied().unwrap_or(0.0),
            median(&r),
            r.last().copied().unwrap_or(0.0)
        )
    };
    println!(
        "| {n} | {pairs} | {:.2} | {:.2} | {:.2} | {} | {} |",
        median_of(&walls[2]),
        median_of(&walls[0]),
        median_of(&walls[1]),
        ratios(0),
        ratios(1),
    );
}

fn median_of(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median(&sorted)
}

fn median(sorted: &[f64]) -> f64 {
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// `fenced.toml` (each host its own fence folder) and `unfenced.toml` (`fence = false`).
fn write_inventories(lab: &SshLab) {
    let fences = lab.lab.path().join("fences");
    let mut fenced = String::new();
    let mut unfenced = String::new();
    for name in lab.names() {
        let dir = fences.join(&name);
        fenced.push_str(&format!(
            "[hosts.{name}]\ngroups = [\"compute\"]\nvars = {{ fence_dir = \"{}\" }}\n\n",
            dir.display()
        ));
        unfenced.push_str(&format!(
            "[hosts.{name}]\ngroups = [\"compute\"]\nvars = {{ fence = false }}\n\n"
        ));
    }
    lab.lab.write("fenced.toml", &fenced);
    lab.lab.write("unfenced.toml", &unfenced);
    lab.lab.write(
        "work.rhai",
        &format!(
            "stage \"work\" on compute {{\n    for i in 0..{COMMANDS} {{ run([\"echo\", `step ${{i}}`]); }}\n}}\n"
        ),
    );
}

fn learn_keys(lab: &SshLab) {
    lab.lab.write(
        "learn.rhai",
        "stage \"k\" on compute { run([\"true\"]); }\n",
    );
    lab.cairn(&[
        "run",
        "learn.rhai",
        "-i",
        "unfenced.toml",
        "--accept-new-host-keys",
    ])
    .succeeds();
}

fn cairn_fenced(lab: &SshLab) -> Duration {
    cairn_way(lab, "fenced.toml")
}

fn cairn_unfenced(lab: &SshLab) -> Duration {
    cairn_way(lab, "unfenced.toml")
}

fn cairn_way(lab: &SshLab, inventory: &str) -> Duration {
    let started = Instant::now();
    let status = lab
        .command(&["run", "work.rhai", "-i", inventory, "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cairn: {e}"));
    let wall = started.elapsed();
    assert!(status.success(), "cairn failed on {inventory}");
    wall
}

fn floor(lab: &SshLab) -> Duration {
    let key = lab.lab.path().join("home/.ssh/lab_key");
    let ports = lab.ports();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for port in &ports {
            let key = &key;
            scope.spawn(move || {
                let session = ssh2_session(*port, key);
                for i in 0..COMMANDS {
                    ssh2_command(&session, &format!("'echo' 'step {i}'"));
                }
            });
        }
    });
    started.elapsed()
}

/// A session to the lab server on `port`, as the lab's root with `key`.
fn ssh2_session(port: u16, key: &Path) -> ssh2::Session {
    let tcp = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect: {e}"));
    // As cairn's transport: without it, Nagle's algorithm holds a small packet sent right after
    // another (the channel close of one command, the channel open of the next) until the first
    // is acknowledged: a delayed ACK of up to 40 ms on Linux.
    tcp.set_nodelay(true)
        .unwrap_or_else(|e| panic!("TCP_NODELAY: {e}"));
    let mut session = ssh2::Session::new().unwrap_or_else(|e| panic!("{e}"));
    let _ = session.method_pref(ssh2::MethodType::Kex, KEX);
    session.set_tcp_stream(tcp);
    session
        .handshake()
        .unwrap_or_else(|e| panic!("handshake: {e}"));
    session
        .userauth_pubkey_file("root", None, key, None)
        .unwrap_or_else(|e| panic!("auth: {e}"));
    session
}

/// One command on a new channel of `session`, its input closed as cairn's transport does.
fn ssh2_command(session: &ssh2::Session, line: &str) {
    let mut channel = session.channel_session().unwrap_or_else(|e| panic!("{e}"));
    channel.exec(line).unwrap_or_else(|e| panic!("{e}"));
    let _ = channel.send_eof();
    let mut out = String::new();
    let _ = channel.read_to_string(&mut out);
    let _ = channel.wait_close();
    assert_eq!(channel.exit_status().ok(), Some(0), "{line}: {out}");
}

/// One host, one session: the bare `echo` and the fenced one alternated, idle and beside a
/// writer.
fn one_command_table() {
    let mut lab = SshLab::start(0, "");
    lab.add_real_host("real01");
    write_inventories(&lab);
    learn_keys(&lab);
    let port = lab.ports().pop().unwrap_or_default();
    let key = lab.lab.path().join("home/.ssh/lab_key");
    let session = ssh2_session(port, &key);
    let place = FencePlace::at(&lab.lab.path().join("fence").display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let fence = Fence::new(place, 1, "bench").unwrap_or_else(|e| panic!("{e}"));
    let check = fence.check("bench").unwrap_or_else(|e| panic!("{e}"));
    ssh2_command(&session, &check);
    println!();
    println!(
        "| one host, `echo` on one session ({PER_COMMAND} each, alternated) | bare median ms | bare p90 ms | fenced median ms | fenced p90 ms | fenced − bare, median ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let idle = measure_pairs(&session, &fence, "idle");
    let writer = Writer::start(&lab.lab.path().join("checkpoint"));
    let busy = measure_pairs(&session, &fence, "writer");
    drop(writer);
    println!();
    println!(
        "fenced p90 beside the writer / idle: {:.2} (bare: {:.2})",
        busy.fenced_p90 / idle.fenced_p90,
        busy.bare_p90 / idle.bare_p90
    );
}

struct Figures {
    bare_p90: f64,
    fenced_p90: f64,
}

fn measure_pairs(session: &ssh2::Session, fence: &Fence, label: &str) -> Figures {
    let mut bare = Vec::new();
    let mut fenced = Vec::new();
    for i in 0..PER_COMMAND {
        let line = fence
            .wrap(&format!("{label}.{i}"), "'echo' 'step'")
            .unwrap_or_else(|e| panic!("{e}"));
        let order: [bool; 2] = if i % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for is_fenced in order {
            let started = Instant::now();
            ssh2_command(session, if is_fenced { &line } else { "'echo' 'step'" });
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            if is_fenced { &mut fenced } else { &mut bare }.push(ms);
        }
    }
    bare.sort_by(f64::total_cmp);
    fenced.sort_by(f64::total_cmp);
    let p90 = |v: &[f64]| v.get(v.len() * 9 / 10).copied().unwrap_or(0.0);
    println!(
        "| {label} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
        median(&bare),
        p90(&bare),
        median(&fenced),
        p90(&fenced),
        median(&fenced) - median(&bare)
    );
    Figures {
        bare_p90: p90(&bare),
        fenced_p90: p90(&fenced),
    }
}

/// A process writing a 256 MiB file over and over in the lab's folder, without flushing it
/// (as a job's checkpoint is written), until dropped.
struct Writer(Child);

impl Writer {
    fn start(path: &Path) -> Self {
        let script = format!(
            "while :; do dd if=/dev/zero of='{}' bs=1M count=256 2>/dev/null; done",
            path.display()
        );
        let child = Command::new("sh")
            .args(["-c", &script])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("writer: {e}"));
        // Let it fill the page cache before the first measurement.
        std::thread::sleep(Duration::from_secs(2));
        Self(child)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        // The shell loop and its `dd`, by PID: the group is ours alone.
        let pid = self.0.id();
        let _ = Command::new("pkill")
            .args(["-KILL", "-P", &pid.to_string()])
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}
