//! The takeover benchmark and fault trials of the shared store (issue 25, docs/fleet.md): a
//! controller driving a run on PostgreSQL is SIGKILLed (`kill`), SIGSTOPped past its TTL
//! (`stop`, then SIGCONT once the standby finished), or cut off from the store (`cut`: its
//! connections go through a proxy that stops forwarding and keeps them open,
//! `cairn_tests::stalling_proxy`; it must end on its own) at a time drawn from the seed, while
//! a `cairn standby`, connected to the server itself, watches the store. Each trial has its own database and simulated fleet.
//!
//! Measured: the time from the fault to the standby's first changing command on a host (its
//! pid in the fence's log), p50 / p99 / max. Checked, from each host's `fenced.log` (the
//! simulated fence's record of every changing command it ran, with its step id and epoch):
//! every command of the runbook ran exactly once (none lost, none twice), no step id twice,
//! the epochs never went down, after SIGCONT the stopped controller ran nothing more, and the
//! cut-off controller ran nothing on a host after the standby's first command there.
//!
//! A skewed clock is not among the faults: a simulated host keeps the time of the process it
//! runs in, so a controller three hours ahead (libfaketime) leaves its hosts' reboots three
//! hours long for the standby that takes them over; that needs hosts outside the controller.
//!
//! `cargo bench -p cairn-tests --bench takeover [-- FAULT TRIALS TTL PARALLEL SEED]`: FAULT
//! is `kill`, `stop` or `cut` (default `kill`, 30 trials, TTL 30 s (the default), 6 trials at once,
//! seed 7). It exits 1 if any trial lost or repeated a command.

use std::path::Path;
use std::process::Child;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cairn_store_pg::scratch_server::ScratchServer;
use cairn_tests::stalling_proxy::StallingProxy;
use cairn_tests::{Lab, send_signal};
use serde_json::Value;

/// The hosts of each trial's run.
const HOSTS: [&str; 4] = ["n1", "n2", "n3", "n4"];
/// Three changing commands around two reboots of 2 s: a run of about 6 s.
const BOOK: &str = "stage \"s\" on all {\n    run([\"echo\", \"A\"]);\n    reboot();\n    \
                    run([\"echo\", \"B\"]);\n    reboot();\n    run([\"echo\", \"C\"]);\n}\n";
const INVENTORY: &str = "[hosts.\"n[1-4]\"]\naddress = \"sim:linux?reboot_secs=2\"\n";
const COMMANDS: [&str; 3] = ["echo A", "echo B", "echo C"];
/// The fault comes this long after the run's first changing command, at most.
const FAULT_WINDOW: f64 = 5.0;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    Kill,
    Stop,
    Cut,
}

/// What one trial found.
#[derive(Debug, Default)]
struct Trial {
    /// Seconds from the fault to the standby's first changing command; `None`: it took
    /// nothing over (the run had ended, or an outcome needed an operator).
    takeover: Option<f64>,
    /// Commands run more than once, over all hosts.
    duplicates: usize,
    /// Commands of the runbook never run.
    missing: usize,
    /// Step ids seen twice, or epochs that went down.
    disorder: usize,
    /// Commands the stopped controller ran after SIGCONT; for a cut, those the cut-off
    /// controller ran on a host after the standby's first command there.
    stale: usize,
    /// The run was left unfinished: why.
    unfinished: Option<String>,
    /// The standby refused to resume: a command was started and never done when the
    /// controller died (in the simulator the host runs in the controller's process), an
    /// outcome only an operator can settle. Its commands left are not counted missing.
    asked: bool,
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let fault = match args.first().map(String::as_str) {
        None | Some("kill") => Fault::Kill,
        Some("stop") => Fault::Stop,
        Some("cut") => Fault::Cut,
        Some(other) => panic!("`{other}`: the fault is `kill`, `stop` or `cut`"),
    };
    let number = |index: usize, default: u64| {
        args.get(index).map_or(default, |a| {
            a.parse().unwrap_or_else(|_| {
                panic!("`{a}`: TRIALS, TTL, PARALLEL and SEED are whole numbers")
            })
        })
    };
    let (trials, ttl, parallel, seed) = (
        number(1, 30),
        number(2, 30),
        number(3, 6).max(1),
        number(4, 7),
    );
    cairn_tests::build_cairn_for_bench();
    let Some(server) = ScratchServer::start_or_skip("the takeover bench") else {
        std::process::exit(2);
    };
    let started = Instant::now();
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0u64);
    std::thread::scope(|scope| {
        for _ in 0..parallel {
            scope.spawn(|| {
                loop {
                    let n = {
                        let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
                        *next += 1;
                        *next
                    };
                    if n > trials {
                        return;
                    }
                    let url = server.new_database().redacted();
                    let delay = FAULT_WINDOW * cairn_tests::seeded_unit(seed, &format!("{n}"));
                    let trial = run_trial(fault, (&url, server.socket_dir()), ttl, delay);
                    if let Some(why) = &trial.unfinished {
                        eprintln!("trial {n}: unfinished: {why}");
                    }
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(trial);
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    report(fault, ttl, seed, &results, started.elapsed());
    let bad: usize = results
        .iter()
        .map(|t| {
            t.duplicates
                + t.missing
                + t.disorder
                + t.stale
                + usize::from(t.unfinished.is_some() && !t.asked)
        })
        .sum();
    if bad > 0 {
        std::process::exit(1);
    }
}

fn report(fault: Fault, ttl: u64, seed: u64, results: &[Trial], wall: Duration) {
    let mut takeovers: Vec<f64> = results.iter().filter_map(|t| t.takeover).collect();
    takeovers.sort_by(f64::total_cmp);
    let quantile = |q: f64| {
        if takeovers.is_empty() {
            return "-".to_owned();
        }
        let index = ((takeovers.len() as f64 * q).ceil() as usize).clamp(1, takeovers.len()) - 1;
        format!("{:.1} s", takeovers[index])
    };
    let sum = |f: fn(&Trial) -> usize| results.iter().map(f).sum::<usize>();
    println!(
        "fault {fault:?}, TTL {ttl} s, standby polling every 1 s, seed {seed}, {} hosts a run\n",
        HOSTS.len()
    );
    println!(
        "| trials | taken over | p50 | p99 | max | duplicate | missing | disorder | stale | asked | unfinished otherwise | wall |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} s |",
        results.len(),
        takeovers.len(),
        quantile(0.5),
        quantile(0.99),
        quantile(1.0),
        sum(|t| t.duplicates),
        sum(|t| t.missing),
        sum(|t| t.disorder),
        sum(|t| t.stale),
        results.iter().filter(|t| t.asked).count(),
        results
            .iter()
            .filter(|t| t.unfinished.is_some() && !t.asked)
            .count(),
        wall.as_secs_f64()
    );
}

/// One trial: a standby, a controller faulted `delay` seconds after its first changing
/// command, the run finished by the standby, the fleet checked. `store`: the database's URL
/// and the server's socket folder (a cut puts a proxy before it).
fn run_trial(fault: Fault, store: (&str, &Path), ttl: u64, delay: f64) -> Trial {
    let (url, socket_dir) = store;
    let proxy = (fault == Fault::Cut).then(|| StallingProxy::to(socket_dir));
    let controller_url = match &proxy {
        Some(proxy) => {
            let (base, _) = url
                .split_once("?host=")
                .unwrap_or_else(|| panic!("a socket-folder URL: {url}"));
            format!("{base}?host={}", proxy.dir().display())
        }
        None => url.to_owned(),
    };
    let (controller_lab, standby_lab) = (Lab::new(), Lab::new());
    controller_lab.write("book.rhai", BOOK);
    controller_lab.write("inv.toml", INVENTORY);
    let fleet = controller_lab.path().join("fleet");
    if let Err(e) = std::fs::create_dir_all(&fleet) {
        panic!("{}: {e}", fleet.display());
    }
    let ttl_text = ttl.to_string();
    let on_fleet = |mut command: std::process::Command| {
        command.env("CAIRN_SIM_DIR", &fleet);
        command
    };
    let mut standby = spawn_logged(
        &standby_lab,
        on_fleet(standby_lab.command(&[
            "standby",
            "--store",
            url,
            "--lease-ttl",
            &ttl_text,
            "--poll",
            "1",
        ])),
    );
    let controller_command = on_fleet(controller_lab.command(&[
        "run",
        "book.rhai",
        "-i",
        "inv.toml",
        "--store",
        &controller_url,
        "--lease-ttl",
        &ttl_text,
    ]));
    let mut controller = spawn_logged(&controller_lab, controller_command);
    let limit = Instant::now() + Duration::from_secs(60);
    while HOSTS.iter().all(|host| fenced(&fleet, host).is_empty()) && Instant::now() < limit {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs_f64(delay));
    let controller_pid = controller.id().to_string();
    let faulted = Instant::now();
    match (fault, &proxy) {
        (Fault::Cut, Some(proxy)) => proxy.stall(),
        (Fault::Kill, _) => send_signal(controller.id(), "KILL"),
        _ => send_signal(controller.id(), "STOP"),
    }
    let standby_pid = standby.id().to_string();
    let mut trial = Trial::default();
    let deadline = faulted + Duration::from_secs(ttl + 60);
    loop {
        let lines: Vec<Fenced> = HOSTS.iter().flat_map(|host| fenced(&fleet, host)).collect();
        if trial.takeover.is_none() && lines.iter().any(|line| line.pid == standby_pid) {
            trial.takeover = Some(faulted.elapsed().as_secs_f64());
        }
        let complete = HOSTS.iter().all(|host| {
            let commands: Vec<String> = fenced(&fleet, host)
                .into_iter()
                .filter(|line| line.command.starts_with("echo "))
                .map(|line| line.command)
                .collect();
            commands.len() >= COMMANDS.len()
        });
        if complete || Instant::now() > deadline {
            if !complete {
                trial.unfinished = Some(format!(
                    "not every command ran within TTL + 60 s; standby pid {standby_pid}"
                ));
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Give a resume that is still ending its journals a moment, then stop the standby.
    std::thread::sleep(Duration::from_millis(500));
    match fault {
        Fault::Stop => {
            let before = count_by(&fleet, &controller_pid);
            send_signal(controller.id(), "CONT");
            end_within(&mut controller, Duration::from_secs(ttl + 30));
            trial.stale = count_by(&fleet, &controller_pid).saturating_sub(before);
        }
        Fault::Cut => {
            if !end_within(&mut controller, Duration::from_secs(ttl + 30)) {
                trial.unfinished = Some("the cut-off controller did not end on its own".into());
            }
            trial.stale = after_takeover(&fleet, &controller_pid, &standby_pid);
        }
        Fault::Kill => {
            let _ = controller.wait();
        }
    }
    send_signal(standby.id(), "TERM");
    let _ = end_within(&mut standby, Duration::from_secs(30));
    let said = std::fs::read_to_string(standby_lab.path().join("out.log")).unwrap_or_default();
    trial.asked = trial.unfinished.is_some() && said.contains("was not resumed");
    if trial.unfinished.is_some() && !trial.asked {
        let tail: Vec<&str> = said.lines().rev().take(12).collect();
        eprintln!("standby said, last lines first:\n{}", tail.join("\n"));
    }
    check_fleet(&fleet, &mut trial);
    trial
}

/// Starts `command` with its output in `lab`'s `out.log` (a pipe nobody reads would fill).
fn spawn_logged(lab: &Lab, mut command: std::process::Command) -> Child {
    let log = std::fs::File::create(lab.path().join("out.log"))
        .unwrap_or_else(|e| panic!("out.log: {e}"));
    let err = log.try_clone().unwrap_or_else(|e| panic!("out.log: {e}"));
    command
        .stdout(log)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

/// Waits for `child` to exit, killing it past `limit`; whether it ended on its own.
fn end_within(child: &mut Child, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// Commands `old` ran on a host after `new`'s first command there.
fn after_takeover(fleet: &Path, old: &str, new: &str) -> usize {
    HOSTS
        .iter()
        .map(|host| {
            fenced(fleet, host)
                .iter()
                .skip_while(|line| line.pid != new)
                .filter(|line| line.pid == old)
                .count()
        })
        .sum()
}

/// One line of a host's `fenced.log`.
struct Fenced {
    step: String,
    epoch: u64,
    pid: String,
    command: String,
}

fn fenced(fleet: &Path, host: &str) -> Vec<Fenced> {
    std::fs::read_to_string(fleet.join(host).join("fenced.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| {
            Some(Fenced {
                step: line["step"].as_str()?.to_owned(),
                epoch: line["epoch"].as_u64()?,
                // The caller is `RUN@CONTROLLER:PID`.
                pid: line["owner"].as_str()?.rsplit(':').next()?.to_owned(),
                command: line["command"].as_str()?.to_owned(),
            })
        })
        .collect()
}

fn count_by(fleet: &Path, pid: &str) -> usize {
    HOSTS
        .iter()
        .flat_map(|host| fenced(fleet, host))
        .filter(|line| line.pid == pid)
        .count()
}

/// Each runbook command once per host, no step twice, epochs never down.
fn check_fleet(fleet: &Path, trial: &mut Trial) {
    for host in HOSTS {
        let lines = fenced(fleet, host);
        for command in COMMANDS {
            let times = lines.iter().filter(|line| line.command == command).count();
            trial.duplicates += times.saturating_sub(1);
            trial.missing += usize::from(times == 0 && !trial.asked);
        }
        let mut steps: Vec<&str> = lines.iter().map(|line| line.step.as_str()).collect();
        steps.sort_unstable();
        let before = steps.len();
        steps.dedup();
        trial.disorder += before - steps.len();
        trial.disorder += lines
            .windows(2)
            .filter(|pair| pair[1].epoch < pair[0].epoch)
            .count();
    }
}
