//! The takeover benchmark and fault trials of the shared store (issue 25, docs/fleet.md): a
//! controller driving a run on PostgreSQL is SIGKILLed (`kill`), SIGSTOPped past its TTL
//! (`stop`, then SIGCONT once the standby finished), cut off from the store (`cut`: its
//! connections go through a proxy that stops forwarding and keeps them open,
//! `cairn_tests::stalling_proxy`; it must end on its own), has its server restarted with
//! `pg_ctl restart -m immediate` (`restart`: every backend killed, the server recovering from
//! its WAL, as after a crash; the controller stops with the cause, and `cairn resume --store`
//! from another folder finishes the run), or is SIGKILLed with skewed clocks (`skew`:
//! libfaketime sets the controller's wall clock three hours behind and the standby's three
//! hours ahead, or the other way round in every other trial; were a session's expiry or an
//! epoch judged by either wall clock, the standby would take over a live run, or be fenced out
//! by the epochs the controller left), at a time drawn from the seed, while a `cairn standby`,
//! connected to the server itself, watches the store. Each trial has its own database and
//! fleet; a restart trial has its own server too.
//!
//! Only the wall clock is skewed: a monotonic clock slowed by libfaketime is not one a machine
//! has, and libfaketime cannot keep it coherent (a condition variable's deadline goes to the
//! kernel's futex, which it does not see: tried at four times slow, a controller's reboot
//! waits slept for minutes).
//!
//! The hosts (`takeover_fleet.rs`) are simulated in the controller's process (`sim`, the
//! default) or behind real sshd servers on loopback (`ssh`), where a host runs its command on
//! its own while its controller is stopped and keeps its own clock: the faithful place for
//! `stop`, and the only one for `skew` (a simulated host in a skewed process would keep the
//! skewed clock).
//!
//! Measured: the time from the fault to the standby's
//! (for a restart, the resume's) first changing command on a host (its pid in the fence's
//! log), p50 / p99 / max. Checked, from each host's `fenced.log`: every command of the runbook
//! ran exactly once (none lost, none twice), no step id twice, the epochs never went down,
//! the standby ran nothing before the fault, after SIGCONT the stopped controller ran nothing
//! more, and a cut-off or restarted controller ran nothing on a host after the standby's (the
//! resume's) first command there.
//!
//! `cargo bench -p cairn-tests --bench takeover [-- FAULT TRIALS TTL PARALLEL SEED HOSTS]`:
//! FAULT is `kill`, `stop`, `cut`, `restart` or `skew` (default `kill`, 30 trials, TTL 30 s
//! (the default), 6 trials at once, seed 7, hosts `sim`; `skew` needs `ssh` and Debian's
//! `faketime`). It exits 1 if any trial lost or repeated a command.

#[allow(dead_code, unreachable_pub)]
mod ssh_lab;
mod takeover_fleet;

use std::path::Path;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cairn_store_pg::scratch_server::ScratchServer;
use cairn_tests::stalling_proxy::StallingProxy;
use cairn_tests::{Lab, send_signal};
use takeover_fleet::{BOOK, Fleet, HOST_COUNT, HostKind};

/// The fault comes this long after the run's first changing command, at most.
const FAULT_WINDOW: f64 = 5.0;
/// The wall clocks of a skew trial (libfaketime's `FAKETIME`): the controller's and the
/// standby's, swapped in every other trial.
const SKEW: [&str; 2] = ["-3h", "+3h"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    Kill,
    Stop,
    Cut,
    Restart,
    Skew,
}

/// What one trial found.
#[derive(Debug, Default)]
struct Trial {
    /// Seconds from the fault to the standby's first changing command; `None`: it took
    /// nothing over (the run had ended, or an outcome needed an operator).
    takeover: Option<f64>,
    /// What the fence logs say against the runbook.
    check: takeover_fleet::FleetCheck,
    /// Commands the stopped controller ran after SIGCONT; for a cut or a restart, those the
    /// faulted controller ran on a host after the standby's first command there.
    stale: usize,
    /// Commands the standby ran before the fault, while the controller was alive.
    early: usize,
    /// The run was left unfinished: why.
    unfinished: Option<String>,
    /// The standby refused to resume: a command was started and never done when the
    /// controller died, an outcome only an operator can settle. Its commands left are not
    /// counted missing.
    asked: bool,
}

/// What the bench was asked.
struct Plan {
    fault: Fault,
    trials: u64,
    ttl: u64,
    parallel: u64,
    seed: u64,
    hosts: HostKind,
}

impl Plan {
    fn from_args() -> Self {
        let args: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with("--"))
            .collect();
        let fault = match args.first().map(String::as_str) {
            None | Some("kill") => Fault::Kill,
            Some("stop") => Fault::Stop,
            Some("cut") => Fault::Cut,
            Some("restart") => Fault::Restart,
            Some("skew") => Fault::Skew,
            Some(other) => {
                panic!("`{other}`: the fault is `kill`, `stop`, `cut`, `restart` or `skew`")
            }
        };
        let number = |index: usize, default: u64| {
            args.get(index).map_or(default, |a| {
                a.parse().unwrap_or_else(|_| {
                    panic!("`{a}`: TRIALS, TTL, PARALLEL and SEED are whole numbers")
                })
            })
        };
        let hosts = match args.get(5).map(String::as_str) {
            None | Some("sim") => HostKind::InProcess,
            Some("ssh") => HostKind::Ssh,
            Some(other) => panic!("`{other}`: HOSTS is `sim` or `ssh`"),
        };
        if fault == Fault::Skew && hosts != HostKind::Ssh {
            panic!(
                "`skew` needs hosts outside the controller (HOSTS `ssh`): a simulated host in a \
                 skewed process keeps the skewed clock"
            );
        }
        Self {
            fault,
            trials: number(1, 30),
            ttl: number(2, 30),
            parallel: number(3, 6).max(1),
            seed: number(4, 7),
            hosts,
        }
    }
}

fn main() {
    let plan = Plan::from_args();
    cairn_tests::build_cairn_for_bench();
    if plan.hosts == HostKind::Ssh && !ssh_lab::available("the takeover bench") {
        std::process::exit(2);
    }
    if plan.fault == Fault::Skew && faketime_library().is_none() {
        eprintln!("SKIPPED the skew trials: libfaketime is absent (apt-get install faketime)");
        std::process::exit(2);
    }
    let Some(server) = ScratchServer::start_or_skip("the takeover bench") else {
        std::process::exit(2);
    };
    let started = Instant::now();
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0u64);
    std::thread::scope(|scope| {
        for _ in 0..plan.parallel {
            scope.spawn(|| {
                loop {
                    let n = {
                        let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
                        *next += 1;
                        *next
                    };
                    if n > plan.trials {
                        return;
                    }
                    let trial = trial_on_its_database(&plan, &server, n);
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
    report(&plan, &results, started.elapsed());
    let bad: usize = results
        .iter()
        .map(|t| {
            t.check.duplicates
                + t.check.missing
                + t.check.disorder
                + t.stale
                + t.early
                + usize::from(t.unfinished.is_some() && !t.asked)
        })
        .sum();
    // `exit` runs no destructor: the scratch server is stopped first, or it outlives the bench.
    drop(server);
    if bad > 0 {
        std::process::exit(1);
    }
}

/// Trial `n` on a new database of `server`, or of a server of its own for a restart (which
/// kills every backend of its server).
fn trial_on_its_database(plan: &Plan, server: &ScratchServer, n: u64) -> Trial {
    let mut own = (plan.fault == Fault::Restart)
        .then(|| ScratchServer::start_or_skip("a restart trial"))
        .flatten();
    let (url, socket_dir) = {
        let server = own.as_ref().unwrap_or(server);
        (
            server.new_database().redacted(),
            server.socket_dir().to_owned(),
        )
    };
    let delay = FAULT_WINDOW * cairn_tests::seeded_unit(plan.seed, &format!("{n}"));
    let store = (url.as_str(), socket_dir.as_path());
    // A skew trial swaps the two clocks every other time.
    let clocks = if n.is_multiple_of(2) {
        [SKEW[1], SKEW[0]]
    } else {
        SKEW
    };
    run_trial(plan, store, own.as_mut(), delay, clocks)
}

fn report(plan: &Plan, results: &[Trial], wall: Duration) {
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
        "fault {:?}, hosts {:?}, TTL {} s, standby polling every 1 s, seed {}, {HOST_COUNT} hosts a run\n",
        plan.fault, plan.hosts, plan.ttl, plan.seed,
    );
    let taken = match plan.fault {
        Fault::Restart => "resumed by hand",
        _ => "taken over",
    };
    println!(
        "| trials | {taken} | p50 | p99 | max | duplicate | missing | disorder | stale | early | asked | unfinished otherwise | wall |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} s |",
        results.len(),
        takeovers.len(),
        quantile(0.5),
        quantile(0.99),
        quantile(1.0),
        sum(|t| t.check.duplicates),
        sum(|t| t.check.missing),
        sum(|t| t.check.disorder),
        sum(|t| t.stale),
        sum(|t| t.early),
        results.iter().filter(|t| t.asked).count(),
        results
            .iter()
            .filter(|t| t.unfinished.is_some() && !t.asked)
            .count(),
        wall.as_secs_f64()
    );
}

/// One trial: a standby, a controller faulted `delay` seconds after its first changing
/// command, the run finished by the standby (after a restart, by a resume from another
/// folder), the fleet checked. `store`: the database's URL and the server's socket folder (a
/// cut puts a proxy before it); `server`, the trial's own, for a restart; `clocks`, the
/// controller's and the standby's wall clocks for a skew.
fn run_trial(
    plan: &Plan,
    store: (&str, &Path),
    server: Option<&mut ScratchServer>,
    delay: f64,
    clocks: [&str; 2],
) -> Trial {
    let (url, socket_dir) = store;
    let fault = plan.fault;
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
    let fleet = Fleet::new(plan.hosts, &controller_lab);
    controller_lab.write("book.rhai", BOOK);
    controller_lab.write("inv.toml", &fleet.inventory());
    let ttl_text = plan.ttl.to_string();
    let mut standby_command = fleet.reach(standby_lab.command(&[
        "standby",
        "--store",
        url,
        "--lease-ttl",
        &ttl_text,
        "--poll",
        "1",
    ]));
    if fault == Fault::Skew {
        with_wall_clock(&mut standby_command, clocks[1]);
    }
    let mut standby = spawn_logged(&standby_lab, standby_command);
    let mut run_args = vec![
        "run",
        "book.rhai",
        "-i",
        "inv.toml",
        "--store",
        &controller_url,
        "--lease-ttl",
        &ttl_text,
    ];
    if plan.hosts == HostKind::Ssh {
        run_args.push("--accept-new-host-keys");
    }
    let mut controller_command = fleet.reach(controller_lab.command(&run_args));
    if fault == Fault::Skew {
        with_wall_clock(&mut controller_command, clocks[0]);
    }
    let mut controller = spawn_logged(&controller_lab, controller_command);
    let limit = Instant::now() + Duration::from_secs(60);
    while !fleet.started() && Instant::now() < limit {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs_f64(delay));
    let controller_pid = controller.id().to_string();
    let standby_pid = standby.id().to_string();
    let faulted = Instant::now();
    let mut trial = Trial {
        early: fleet.count_by(&standby_pid),
        ..Trial::default()
    };
    match (fault, &proxy) {
        (Fault::Cut, Some(proxy)) => proxy.stall(),
        (Fault::Kill | Fault::Skew, _) => send_signal(controller.id(), "KILL"),
        (Fault::Restart, _) => server
            .unwrap_or_else(|| panic!("a restart trial has its own server"))
            .restart_immediate()
            .unwrap_or_else(|e| panic!("restart: {e}")),
        _ => send_signal(controller.id(), "STOP"),
    }
    // After a restart the controller stops on its own (its session closed, its hosts given
    // back: nothing is orphaned), and an operator resumes the run from another folder.
    let resume_lab = Lab::new();
    let mut resume = None;
    if fault == Fault::Restart {
        if !end_within(&mut controller, Duration::from_secs(plan.ttl + 30)) {
            trial.unfinished = Some("the controller did not stop after the restart".into());
        }
        if !fleet.complete() {
            let id = run_id(&controller_lab);
            let command = fleet.reach(resume_lab.command(&[
                "resume",
                &id,
                "--store",
                url,
                "--lease-ttl",
                &ttl_text,
            ]));
            resume = Some(spawn_logged(&resume_lab, command));
        }
    }
    let new_pid = match &resume {
        Some(resume) => resume.id().to_string(),
        None => standby_pid,
    };
    let deadline = faulted + Duration::from_secs(plan.ttl + 60);
    loop {
        let lines = fleet.all_fenced();
        if trial.takeover.is_none() && lines.iter().any(|line| line.pid == new_pid) {
            trial.takeover = Some(faulted.elapsed().as_secs_f64());
        }
        let complete = fleet.complete();
        if complete || Instant::now() > deadline {
            if !complete {
                trial.unfinished = Some(format!(
                    "not every command ran within TTL + 60 s; standby (or resume) pid {new_pid}"
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
            let before = fleet.count_by(&controller_pid);
            send_signal(controller.id(), "CONT");
            end_within(&mut controller, Duration::from_secs(plan.ttl + 30));
            trial.stale = fleet.count_by(&controller_pid).saturating_sub(before);
        }
        Fault::Cut => {
            if !end_within(&mut controller, Duration::from_secs(plan.ttl + 30)) {
                trial.unfinished = Some("the cut-off controller did not end on its own".into());
            }
            trial.stale = fleet.after_takeover(&controller_pid, &new_pid);
        }
        Fault::Kill | Fault::Restart | Fault::Skew => {
            let _ = controller.wait();
        }
    }
    if let Some(mut resume) = resume {
        if !end_within(&mut resume, Duration::from_secs(30)) {
            trial.unfinished = Some("the resume did not end".into());
        }
        trial.stale = fleet.after_takeover(&controller_pid, &new_pid);
    }
    send_signal(standby.id(), "TERM");
    let _ = end_within(&mut standby, Duration::from_secs(30));
    let said = std::fs::read_to_string(standby_lab.path().join("out.log")).unwrap_or_default();
    trial.asked = trial.unfinished.is_some() && said.contains("was not resumed");
    if trial.unfinished.is_some() && !trial.asked {
        for (who, lab) in [("standby", &standby_lab), ("controller", &controller_lab)] {
            let said = std::fs::read_to_string(lab.path().join("out.log")).unwrap_or_default();
            let tail: Vec<&str> = said.lines().rev().take(12).collect();
            eprintln!("{who} said, last lines first:\n{}", tail.join("\n"));
        }
    }
    trial.check = fleet.check(trial.asked);
    let check = &trial.check;
    if check.duplicates + check.missing + check.disorder + trial.stale + trial.early > 0 {
        eprintln!(
            "a trial went wrong: {check:?}, stale {}, early {}; controller pid {controller_pid}, \
             fault {delay:.2} s after the first command; the fences:\n{}",
            trial.stale,
            trial.early,
            fleet.describe()
        );
        for (who, lab) in [("standby", &standby_lab), ("controller", &controller_lab)] {
            let said = std::fs::read_to_string(lab.path().join("out.log")).unwrap_or_default();
            eprintln!("{who} said:\n{said}");
        }
    }
    trial
}

/// Runs `command` with its wall clock at `offset` (libfaketime's `FAKETIME`, `-3h`) and its
/// monotonic clock left alone, through libfaketime preloaded into the process itself (the
/// `faketime` program would fork, and the fence logs name the pid).
fn with_wall_clock(command: &mut Command, offset: &str) {
    let Some(library) = faketime_library() else {
        panic!("libfaketime is absent (apt-get install faketime)");
    };
    command
        .env("LD_PRELOAD", library)
        .env("FAKETIME", offset)
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
}

/// Debian's multi-threaded libfaketime (`/usr/lib/ARCH/faketime/libfaketimeMT.so.1`).
fn faketime_library() -> Option<std::path::PathBuf> {
    std::fs::read_dir("/usr/lib")
        .ok()?
        .flatten()
        .map(|entry| entry.path().join("faketime/libfaketimeMT.so.1"))
        .find(|path| path.exists())
}

/// The id of the run the controller of `lab` started (`run ID: ...` in its output).
fn run_id(lab: &Lab) -> String {
    let said = std::fs::read_to_string(lab.path().join("out.log")).unwrap_or_default();
    said.split_whitespace()
        .map(|word| word.trim_end_matches([':', ',', ')']))
        .find(|word| {
            word.len() == 15
                && word
                    .char_indices()
                    .all(|(i, c)| if i == 8 { c == '-' } else { c.is_ascii_digit() })
        })
        .unwrap_or_else(|| panic!("no run id in the controller's output:\n{said}"))
        .to_owned()
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
