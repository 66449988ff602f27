//! The SSH benchmark: a 10-command workload per host on 1, 4, 16 and 64 lab hosts (real sshd on
//! loopback, each command answered by `cairn-simhost`), three ways in the same run:
//!
//! - `cairn`: the built binary running a runbook of 10 `run([...])` per host;
//! - `ssh2 loop`: the floor: one ssh2 session per host, one channel per command, a thread per
//!   host, no interpreter, no journal;
//! - `openssh`: one `ssh` process per command over a ControlMaster connection per host, hosts
//!   in parallel, the same key exchange (curve25519-sha256).
//!
//! Each way runs 3 times per size, interleaved, and the run with the median wall time is shown.
//! Each run gets a fresh lab, so CPU time is counted per way: this process and every process
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
const PER_COMMAND: usize = 100;
const CONNECTIONS: usize = 20;
const REPEAT: usize = 3;
const KEX: &str = "curve25519-sha256";

/// What one way reports.
struct Outcome {
    /// CPU seconds of processes this one does not wait for (OpenSSH's ControlMasters).
    extra_cpu: f64,
    peak_kib: u64,
    wall: Duration,
}

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
    cairn_tests::build_cairn_for_bench();
    per_command_table();
    println!();
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
        // Each way REPEAT times, interleaved so they share the machine's moods; the run with the
        // median wall time of each way is shown.
        let mut runs: [Vec<Sample>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for _ in 0..REPEAT {
            runs[0].push(measure(n, cairn));
            runs[1].push(measure(n, bare_loop));
            runs[2].push(measure(n, openssh));
        }
        let [cairn, bare, openssh] = runs.map(median);
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

/// The sample with the median wall time.
fn median(mut samples: Vec<Sample>) -> Sample {
    samples.sort_by_key(|sample| sample.wall);
    let middle = samples.len() / 2;
    samples.swap_remove(middle)
}

/// Runs `way` on a fresh lab of `n` hosts whose keys are known already.
fn measure(n: usize, way: fn(&SshLab) -> Outcome) -> Sample {
    let lab = SshLab::start(n, "reboot_secs=1");
    learn_keys(&lab);
    let before = cpu_seconds();
    let outcome = way(&lab);
    std::thread::sleep(Duration::from_millis(300)); // sessions end, sshd reaps them
    drop(lab);
    Sample {
        cpu: cpu_seconds() - before + outcome.extra_cpu,
        peak_kib: outcome.peak_kib,
        wall: outcome.wall,
    }
}

fn learn_keys(lab: &SshLab) {
    lab.lab.write(
        "learn.rhai",
        "stage \"k\" on compute { run([\"true\"]); }\n",
    );
    lab.lab.write("lab.toml", &lab.inventory());
    lab.cairn(&[
        "run",
        "learn.rhai",
        "-i",
        "lab.toml",
        "--accept-new-host-keys",
    ])
    .succeeds();
}

fn cairn(lab: &SshLab) -> Outcome {
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
    Outcome {
        extra_cpu: 0.0,
        peak_kib: peak,
        wall: started.elapsed(),
    }
}

fn bare_loop(lab: &SshLab) -> Outcome {
    let key = lab.lab.path().join("home/.ssh/lab_key");
    let ports = lab.ports();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for port in &ports {
            let key = &key;
            scope.spawn(move || {
                let session = ssh2_session(*port, key);
                for i in 0..COMMANDS {
                    ssh2_command(&session, &format!("echo 'step {i}'"));
                }
            });
        }
    });
    Outcome {
        extra_cpu: 0.0,
        peak_kib: hwm_kib(std::process::id()),
        wall: started.elapsed(),
    }
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

/// One command on a new channel of `session`.
fn ssh2_command(session: &ssh2::Session, line: &str) {
    let mut channel = session.channel_session().unwrap_or_else(|e| panic!("{e}"));
    channel.exec(line).unwrap_or_else(|e| panic!("{e}"));
    // cairn-simhost reads standard input to its end, as cairn's transport sends it.
    let _ = channel.send_eof();
    let mut out = String::new();
    let _ = channel.read_to_string(&mut out);
    let _ = channel.wait_close();
    assert_eq!(channel.exit_status().ok(), Some(0), "{line}");
}

fn openssh(lab: &SshLab) -> Outcome {
    let names = lab.names();
    let started = Instant::now();
    let masters: Vec<(u64, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .iter()
            .map(|name| {
                scope.spawn(move || {
                    let socket = master_up(lab, name);
                    for i in 0..COMMANDS {
                        openssh_command(lab, name, &socket, &format!("echo 'step {i}'"));
                    }
                    master_down(lab, name, &socket)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    Outcome {
        extra_cpu: masters.iter().map(|(_, cpu)| cpu).sum(),
        peak_kib: masters.iter().map(|(kib, _)| kib).sum(),
        wall: started.elapsed(),
    }
}

/// `ssh` with the lab's configuration, over the ControlMaster socket `socket`.
fn ssh_client(lab: &SshLab, socket: &Path) -> Command {
    let home = lab.lab.path().join("home");
    let mut command = Command::new("ssh");
    command
        .arg("-F")
        .arg(home.join(".ssh/config"))
        .args(["-o", "BatchMode=yes", "-o", &format!("KexAlgorithms={KEX}")])
        .arg("-o")
        .arg(format!(
            "UserKnownHostsFile={}",
            home.join(".ssh/known_hosts").display()
        ))
        .arg("-S")
        .arg(socket)
        .env("HOME", &home)
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null());
    command
}

/// Starts a ControlMaster for host `name`; its socket.
fn master_up(lab: &SshLab, name: &str) -> std::path::PathBuf {
    let socket = lab.lab.path().join(format!("cm-{name}"));
    let up = ssh_client(lab, &socket)
        .args(["-M", "-f", "-N", "-o", "ControlPersist=yes"])
        .arg(name)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(up.is_ok_and(|s| s.success()), "ControlMaster for {name}");
    socket
}

/// One `ssh` process over the ControlMaster.
fn openssh_command(lab: &SshLab, name: &str, socket: &Path, line: &str) {
    let out = ssh_client(lab, socket).arg(name).arg(line).output();
    assert!(out.is_ok_and(|o| o.status.success()), "ssh {name} {line}");
}

/// Stops the ControlMaster of `name`: its peak memory (KiB) and CPU seconds.
fn master_down(lab: &SshLab, name: &str, socket: &Path) -> (u64, f64) {
    let check = ssh_client(lab, socket)
        .args(["-O", "check"])
        .arg(name)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .unwrap_or_default();
    let master = check
        .split("pid=")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|pid| pid.parse::<u32>().ok());
    // The master went to the background (`-f`): no one here waits for it, so its CPU time is
    // read before it exits.
    let measured = (master.map_or(0, hwm_kib), master.map_or(0.0, process_cpu));
    let _ = ssh_client(lab, socket)
        .args(["-O", "exit"])
        .arg(name)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    measured
}

/// What one command costs, `PER_COMMAND` of them in a row on one host: through a real shell
/// (sshd, the login shell, `true`) or answered by `cairn-simhost`, on a libssh2 channel or one
/// `ssh` process over a ControlMaster. CPU: every process, the server's included.
fn per_command_table() {
    println!();
    println!(
        "| one host, one after another ({PER_COMMAND} commands, {CONNECTIONS} connections) | wall ms each | CPU ms each |"
    );
    println!("|---|---:|---:|");
    for (label, real, openssh) in [
        ("ssh2 channel, `true` in a real shell", true, false),
        (
            "ssh2 channel, `echo` answered by cairn-simhost",
            false,
            false,
        ),
        ("`ssh -S`, `true` in a real shell", true, true),
        ("`ssh -S`, `echo` answered by cairn-simhost", false, true),
    ] {
        let mut lab = SshLab::start(usize::from(!real), "reboot_secs=1");
        if real {
            lab.add_real_host("real01");
        }
        learn_keys(&lab);
        let name = lab.names().pop().unwrap_or_default();
        let port = lab.ports().pop().unwrap_or_default();
        let line = if real { "true" } else { "echo step" };
        let before = cpu_seconds();
        let started = Instant::now();
        let mut extra_cpu = 0.0;
        if openssh {
            let socket = master_up(&lab, &name);
            for _ in 0..PER_COMMAND {
                openssh_command(&lab, &name, &socket, line);
            }
            extra_cpu = master_down(&lab, &name, &socket).1;
        } else {
            let key = lab.lab.path().join("home/.ssh/lab_key");
            let session = ssh2_session(port, &key);
            for _ in 0..PER_COMMAND {
                ssh2_command(&session, line);
            }
        }
        let wall = started.elapsed();
        std::thread::sleep(Duration::from_millis(300));
        drop(lab);
        let cpu = cpu_seconds() - before + extra_cpu;
        let per = PER_COMMAND as f64;
        println!(
            "| {label} | {:.1} | {:.1} |",
            wall.as_secs_f64() * 1000.0 / per,
            cpu * 1000.0 / per
        );
    }
    for (label, openssh) in [
        (
            "ssh2 session: connect, key exchange, login (no command)",
            false,
        ),
        (
            "ControlMaster: connect, key exchange, login (no command)",
            true,
        ),
    ] {
        let lab = SshLab::start(1, "reboot_secs=1");
        learn_keys(&lab);
        let name = lab.names().pop().unwrap_or_default();
        let port = lab.ports().pop().unwrap_or_default();
        let key = lab.lab.path().join("home/.ssh/lab_key");
        let before = cpu_seconds();
        let started = Instant::now();
        let mut extra_cpu = 0.0;
        for _ in 0..CONNECTIONS {
            if openssh {
                let socket = master_up(&lab, &name);
                extra_cpu += master_down(&lab, &name, &socket).1;
            } else {
                drop(ssh2_session(port, &key));
            }
        }
        let wall = started.elapsed();
        std::thread::sleep(Duration::from_millis(300));
        drop(lab);
        let cpu = cpu_seconds() - before + extra_cpu;
        let per = CONNECTIONS as f64;
        println!(
            "| {label} | {:.1} | {:.1} |",
            wall.as_secs_f64() * 1000.0 / per,
            cpu * 1000.0 / per
        );
    }
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

/// A running process's own CPU seconds (utime + stime).
fn process_cpu(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let ticks: u64 = stat
        .rsplit_once(')')
        .map(|(_, rest)| {
            rest.split_whitespace()
                .skip(11)
                .take(2)
                .map(|f| f.parse::<u64>().unwrap_or(0))
                .sum()
        })
        .unwrap_or(0);
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
