//! The SSH benchmark: a 10-command workload per host on 1, 4, 16 and 64 lab hosts (real sshd on
//! loopback, each command answered by `cairn-simhost`), three ways in the same run:
//!
//! - `cairn`: the built binary running a runbook of 10 `run([...])` per host;
//! - `ssh2 loop`: the floor: one ssh2 session per host, one channel per command, a thread per
//!   host, no interpreter, no journal;
//! - `openssh`: one `ssh` process per command over a ControlMaster connection per host, hosts
//!   in parallel, the same key exchange (curve25519-sha256).
//!
//! Each way gets a fresh lab, so CPU time is counted per way: this process and every process
//! it waited for (the controller, sshd and its sessions, `cairn-simhost`), in seconds per host.
//! Peak memory is the controller's (cairn's; this process's for the loop; the ControlMaster
//! processes' together for OpenSSH). The bench builds `cairn` and `cairn-simhost` in its own
//! profile (release, for `cargo bench`) before it starts:
//! `cargo bench -p cairn-tests --bench ssh [-- 1,4,16]`.

#[allow(dead_code, unreachable_pub)]
mod ssh_lab;

use std::io::Read;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ssh_lab::SshLab;

const COMMANDS: usize = 10;
const KEX: &str = "curve25519-sha256";

struct Sample {
    cpu: f64,
    peak_kib: u64,
    wall: Duration,
}

fn main() {
    if !Path::new(ssh_lab::SSHD).exists() {
        eprintln!("SKIPPED ssh bench: {} is absent", ssh_lab::SSHD);
        return;
    }
    build_binaries();
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(|list| list.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 4, 16, 64]);
    println!(
        "| hosts | way | wall s | CPU s/host | peak MiB | wall vs ssh2 loop | wall vs openssh |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for n in sizes {
        let cairn = measure(n, cairn);
        let bare = measure(n, bare_loop);
        let openssh = measure(n, openssh);
        for (name, s) in [
            ("cairn", &cairn),
            ("ssh2 loop", &bare),
            ("openssh", &openssh),
        ] {
            println!(
                "| {n} | {name} | {:.2} | {:.3} | {:.1} | {:.2}× | {:.2}× |",
                s.wall.as_secs_f64(),
                s.cpu / n as f64,
                s.peak_kib as f64 / 1024.0,
                s.wall.as_secs_f64() / bare.wall.as_secs_f64(),
                s.wall.as_secs_f64() / openssh.wall.as_secs_f64(),
            );
        }
    }
}

/// Builds `cairn` and `cairn-simhost` in this bench's own profile folder (`target/release` for
/// `cargo bench`), so the lab never runs a stale or debug `cairn-simhost`.
fn build_binaries() {
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("current_exe: {e}"));
    let Some(profile_dir) = exe.parent().and_then(Path::parent) else {
        panic!("{} is not in a profile folder", exe.display());
    };
    let Some(target_dir) = profile_dir.parent() else {
        panic!("{} is not in a target folder", profile_dir.display());
    };
    let profile = profile_dir
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("release");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--quiet", "-p", "cairn", "--bins", "--target-dir"])
        .arg(target_dir);
    if profile != "debug" {
        command.arg("--release");
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("cargo build: {e}"));
    assert!(
        status.success(),
        "cargo build of cairn and cairn-simhost failed"
    );
    eprintln!(
        "binaries: {} ({profile} profile)",
        profile_dir.join("cairn-simhost").display()
    );
}

/// Runs `way` on a fresh lab of `n` hosts whose keys are known already.
fn measure(n: usize, way: fn(&SshLab) -> (Duration, u64)) -> Sample {
    let lab = SshLab::start(n, "reboot_secs=1");
    learn_keys(&lab);
    let before = cpu_seconds();
    let (wall, peak_kib) = way(&lab);
    std::thread::sleep(Duration::from_millis(300)); // sessions end, sshd reaps them
    drop(lab);
    Sample {
        cpu: cpu_seconds() - before,
        peak_kib,
        wall,
    }
}

fn learn_keys(lab: &SshLab) {
    lab.lab.write(
        "learn.rhai",
        "stage \"k\" on compute { run([\"true\"]); }\n",
    );
    lab.lab.write("lab.toml", &lab.inventory());
    let run = lab.cairn(&[
        "run",
        "learn.rhai",
        "-i",
        "lab.toml",
        "--accept-new-host-keys",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

fn cairn(lab: &SshLab) -> (Duration, u64) {
    let book = format!(
        "stage \"work\" on compute {{\n    for i in 0..{COMMANDS} {{ run([\"echo\", `step ${{i}}`]); }}\n}}\n"
    );
    lab.lab.write("work.rhai", &book);
    let started = Instant::now();
    let mut child = lab
        .command(&["run", "work.rhai", "-i", "lab.toml", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cairn: {e}"));
    let mut peak = 0;
    loop {
        peak = peak.max(hwm_kib(child.id()));
        if let Ok(Some(status)) = child.try_wait() {
            assert!(status.success(), "cairn failed");
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (started.elapsed(), peak)
}

fn bare_loop(lab: &SshLab) -> (Duration, u64) {
    let key = lab.lab.path().join("home/.ssh/lab_key");
    let ports = lab.ports();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for port in &ports {
            let key = &key;
            scope.spawn(move || {
                let tcp = TcpStream::connect(("127.0.0.1", *port))
                    .unwrap_or_else(|e| panic!("connect: {e}"));
                // As cairn's transport: without it, Nagle's algorithm holds libssh2's second
                // small packet of a command (the `exec` after the channel open) until the
                // first is acknowledged, a delayed ACK of up to 40 ms on Linux.
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
                for i in 0..COMMANDS {
                    let mut channel = session.channel_session().unwrap_or_else(|e| panic!("{e}"));
                    channel
                        .exec(&format!("echo 'step {i}'"))
                        .unwrap_or_else(|e| panic!("{e}"));
                    // cairn-simhost reads standard input to its end, as cairn's transport
                    // sends it.
                    let _ = channel.send_eof();
                    let mut out = String::new();
                    let _ = channel.read_to_string(&mut out);
                    let _ = channel.wait_close();
                    assert_eq!(channel.exit_status().ok(), Some(0));
                }
            });
        }
    });
    (started.elapsed(), hwm_kib(std::process::id()))
}

fn openssh(lab: &SshLab) -> (Duration, u64) {
    let home = lab.lab.path().join("home");
    let config = home.join(".ssh/config");
    let known = home.join(".ssh/known_hosts");
    let names = lab.names();
    let ssh = |name: &str, socket: &Path| {
        let mut command = Command::new("ssh");
        command
            .arg("-F")
            .arg(&config)
            .args(["-o", "BatchMode=yes", "-o", &format!("KexAlgorithms={KEX}")])
            .arg("-o")
            .arg(format!("UserKnownHostsFile={}", known.display()))
            .arg("-S")
            .arg(socket)
            .env("HOME", &home)
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null());
        let _ = name;
        command
    };
    let started = Instant::now();
    let masters: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .iter()
            .map(|name| {
                let socket = lab.lab.path().join(format!("cm-{name}"));
                scope.spawn(move || {
                    let up = ssh(name, &socket)
                        .args(["-M", "-f", "-N", "-o", "ControlPersist=yes"])
                        .arg(name)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status();
                    assert!(up.is_ok_and(|s| s.success()), "ControlMaster for {name}");
                    for i in 0..COMMANDS {
                        let out = ssh(name, &socket)
                            .arg(name)
                            .arg(format!("echo 'step {i}'"))
                            .output();
                        assert!(out.is_ok_and(|o| o.status.success()), "ssh {name}");
                    }
                    let check = ssh(name, &socket)
                        .args(["-O", "check"])
                        .arg(name)
                        .output()
                        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
                        .unwrap_or_default();
                    let hwm = check
                        .split("pid=")
                        .nth(1)
                        .and_then(|rest| rest.split(')').next())
                        .and_then(|pid| pid.parse::<u32>().ok())
                        .map_or(0, hwm_kib);
                    let _ = ssh(name, &socket)
                        .args(["-O", "exit"])
                        .arg(name)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status();
                    hwm
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    (started.elapsed(), masters.iter().sum())
}

/// CPU seconds of this process and of every child it waited for.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    // After `)`: state ppid ... utime(12) stime(13) cutime(14) cstime(15), 0-based from state.
    let ticks: u64 = (11..15).filter_map(|i| fields.get(i)).sum();
    ticks as f64 / 100.0
}

/// A process's peak resident memory (VmHWM), in KiB.
fn hwm_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
