//! The production-cluster benchmark (issue 14): recipe 1 on 32 simulated ESXi hosts and their
//! 32 VMs, with the operation durations of real hardware (docs/simulator.md, "Operation
//! durations") and per-host jitter from a seed, run twice by the built `cairn`: all hosts at
//! once under `--max-unavailable 4`, and in `serial 4` batches (`--param rolling=4`, same
//! budget). It prints each run's makespan against the lower bound, the larger of the longest
//! single host's path and the total unavailable time divided by 4 (target ≤ 1.03×): the time
//! each host holds its place, an ESXi host from its VM's power-off to its VM powered on again,
//! a VM for its reboot.
//!
//! Why scaled clocks and not virtual ones: each simulated host has its own virtual clock and
//! the disruption budget waits in real time, so on virtual clocks a host waiting for room does
//! not age while the holder's reboot passes in no time; a run-wide makespan on them is not
//! defined. Here every host's address has `time_scale=SCALE`: its clock is the wall clock run
//! SCALE times faster, the same for all, so every wait (a reboot, a burn, the runtime's polls)
//! passes in simulated time on one shared timeline. The journals' timestamps are wall-clock
//! milliseconds; the bench multiplies them back. What does not scale is the controller's own
//! work (an fsync, a parse), which costs SCALE times its wall time in simulated time.
//!
//! The window measured ends when the last ESXi host or VM finished its last action; recipe 1's
//! validation stage (perftest between the VMs) is left out of the runbook the bench runs: it is
//! no disruption.
//!
//! `cargo bench -p cairn-tests --bench rolling [-- SCALE [SEED]]` builds `cairn` in the
//! bench's profile (release) first.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use cairn_tests::{Lab, records};
use serde_json::Value;

/// ESXi hosts, and as many VMs.
const HOSTS: usize = 32;
/// `--max-unavailable`.
const BUDGET: usize = 4;
/// Simulated seconds per wall-clock second.
const DEFAULT_SCALE: u32 = 600;
/// Each host's durations are the nominal ones times a factor in 1 ± `JITTER`.
const JITTER: f64 = 0.2;

/// Nominal durations, simulated seconds (docs/simulator.md, "Operation durations").
const ESXI_REBOOT: f64 = 600.0;
const VIB_INSTALL: f64 = 60.0;
const FW_BURN: f64 = 300.0;
const VM_BOOT: f64 = 120.0;
const OFED_INSTALL: f64 = 300.0;
/// One vCenter power task; vCenter is one host, so one jittered value for all its tasks.
const VM_POWER: f64 = 10.0;

fn main() {
    // Cargo adds `--bench`; the rest are ours.
    let mut args = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| {
            a.parse::<u32>()
                .unwrap_or_else(|_| panic!("`{a}`: SCALE and SEED are whole numbers"))
        });
    let scale = args.next().unwrap_or(DEFAULT_SCALE);
    let seed = args.next().map_or(7, u64::from);
    cairn_tests::build_cairn_for_bench();
    println!(
        "recipe 1, {HOSTS} ESXi hosts + {HOSTS} VMs, --max-unavailable {BUDGET}, seed {seed}, \
         1 wall second = {scale} simulated seconds\n"
    );
    println!(
        "| schedule | makespan | longest host path | unavailable / {BUDGET} | bound | ratio | poll overshoot | wall |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut makespans = Vec::new();
    for (name, rolling) in [
        ("all at once, budget 4", "0"),
        ("serial 4 batches, budget 4", "4"),
    ] {
        let m = measure(scale, seed, rolling);
        let bound = m.longest_path.max(m.unavailable / BUDGET as f64);
        println!(
            "| {name} | {} | {} | {} | {} | {:.3} | {} | {:.1} s |",
            minutes(m.makespan),
            minutes(m.longest_path),
            minutes(m.unavailable / BUDGET as f64),
            minutes(bound),
            m.makespan / bound,
            minutes(m.overshoot),
            m.wall
        );
        makespans.push((name, m.makespan));
    }
    if let [(a, ma), (b, mb)] = makespans.as_slice() {
        let (best, other) = if ma <= mb { (a, b) } else { (b, a) };
        println!(
            "\nshorter window: {best} ({} against {} for {other})",
            minutes(ma.min(*mb)),
            minutes(ma.max(*mb))
        );
    }
}

/// What one run's journals show, in simulated seconds.
struct Measured {
    makespan: f64,
    longest_path: f64,
    unavailable: f64,
    overshoot: f64,
    wall: f64,
}

fn measure(scale: u32, seed: u64, rolling: &str) -> Measured {
    let lab = Lab::shipped();
    lab.write("cluster.toml", &inventory(scale, seed));
    lab.write("runbooks/recipe1-setup.rhai", &without_validation());
    let started = Instant::now();
    let run = lab.cairn(&[
        "run",
        "runbooks/recipe1-setup.rhai",
        "-i",
        "cluster.toml",
        "--max-unavailable",
        &BUDGET.to_string(),
        "--forks",
        "128",
        "--param",
        &format!("rolling={rolling}"),
        // An ESXi reboot takes up to 12 minutes here (600 s ± 20%): more than the default 10.
        "--reboot-timeout",
        "1800",
        "--json",
    ]);
    let wall = started.elapsed().as_secs_f64();
    assert!(
        run.code == 0,
        "the run failed (exit {:?}):\n{}",
        run.code,
        run.stderr
    );
    let mut journals = BTreeMap::new();
    for n in 1..=HOSTS {
        journals.insert(format!("esx{n:02}"), lab.journal(&format!("esx{n:02}")));
        journals.insert(format!("vm{n:02}"), lab.journal(&format!("vm{n:02}")));
    }
    let at = |r: &Value| r["data"]["at"].as_f64().unwrap_or(0.0);
    let start = journals
        .values()
        .filter_map(|j| records(j, "header").first().map(|r| at(r)))
        .fold(f64::MAX, f64::min);
    // The window ends with the last action of an ESXi host or VM: the validation stage after
    // it (perftest from the controller) is not a disruption and its simulated tools are not
    // time-compressed.
    let end = journals
        .values()
        .filter_map(|j| records(j, "outcome").last().map(|r| at(r)))
        .fold(0.0, f64::max);
    let mut longest_path: f64 = 0.0;
    let mut unavailable = 0.0;
    let mut overshoot = 0.0;
    for (host, journal) in &journals {
        let spans = action_spans(journal);
        longest_path = longest_path.max(spans.iter().map(Span::busy).sum::<f64>());
        // An ESXi host is unavailable as the recipe declares it and the budget holds it: from
        // its VM's power-off (`unavailable()` just before, so after any wait for the budget)
        // to the readiness gate after its VM's power-on (`ready::vm_powered_on`, the
        // `vhpc::view` right before `available()`). Maintenance mode lies inside that window.
        let window = esxi_window(&spans);
        if let Some((down, up)) = window {
            unavailable += up - down;
        }
        for reboot in spans.iter().filter(|s| s.builtin == "reboot") {
            if window.is_none() {
                unavailable += reboot.busy();
            }
            // The reboot's wait is on the host's clock: simulated milliseconds already.
            let nominal = reboot_secs(host, seed) * 1000.0;
            overshoot += (reboot.waited_ms - nominal).max(0.0) / 1000.0;
        }
    }
    let to_sim = |ms: f64| ms / 1000.0 * f64::from(scale);
    Measured {
        makespan: to_sim(end - start),
        longest_path: to_sim(longest_path),
        unavailable: to_sim(unavailable),
        overshoot,
        wall,
    }
}

/// An ESXi host's window in the budget (wall ms): from the intent of its VM's power-off to the
/// outcome of the first `vhpc::view` after its VM's last power-on; `None` for a VM.
fn esxi_window(spans: &[Span]) -> Option<(f64, f64)> {
    let power = |s: &Span, state: &str| s.builtin == "vhpc::power" && s.args["state"] == state;
    let down = spans.iter().find(|s| power(s, "off"))?.start;
    let on = spans.iter().rposition(|s| power(s, "on"))?;
    let up = spans[on..].iter().find(|s| s.builtin == "vhpc::view")?.end;
    Some((down, up))
}

/// One journaled action: its builtin, intent and outcome times (wall ms), the time it waited
/// for room in the budget, and for a reboot the wait for the host its outcome reports
/// (simulated ms, on the host's clock).
struct Span {
    builtin: String,
    args: Value,
    start: f64,
    end: f64,
    waited_for_budget: f64,
    waited_ms: f64,
}

impl Span {
    /// The action's own time: its span less its wait for the budget.
    fn busy(&self) -> f64 {
        self.end - self.start - self.waited_for_budget
    }
}

fn action_spans(journal: &[Value]) -> Vec<Span> {
    let outcomes: BTreeMap<u64, &Value> = records(journal, "outcome")
        .into_iter()
        .filter_map(|o| Some((o["data"]["seq"].as_u64()?, o)))
        .collect();
    let waits = budget_waits(journal);
    records(journal, "intent")
        .into_iter()
        .filter_map(|i| {
            let outcome = outcomes.get(&i["data"]["seq"].as_u64()?)?;
            let (start, end) = (i["data"]["at"].as_f64()?, outcome["data"]["at"].as_f64()?);
            Some(Span {
                builtin: i["data"]["builtin"].as_str()?.to_owned(),
                args: i["data"]["args"].clone(),
                start,
                end,
                waited_for_budget: waits
                    .iter()
                    .filter(|(at, _)| (start..=end).contains(at))
                    .map(|(_, length)| length)
                    .sum(),
                waited_ms: outcome["data"]["result"]["waited_ms"]
                    .as_f64()
                    .unwrap_or(0.0),
            })
        })
        .collect()
}

/// Recipe 1 up to its validation stage ("3.1 ibverbs tests", perftest between the VMs): not
/// part of the window.
fn without_validation() -> String {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../runbooks/vsphere7-ib-roce-passthrough.rhai");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cut = text
        .find("stage \"3.1 ibverbs tests\"")
        .unwrap_or_else(|| panic!("recipe 1 has no stage \"3.1 ibverbs tests\""));
    text[..cut].to_owned()
}

/// The host's waits for room in the budget, (when, wall ms): from each `wait` record to the
/// next record of its journal.
fn budget_waits(journal: &[Value]) -> Vec<(f64, f64)> {
    let at = |r: &Value| r["data"]["at"].as_f64().unwrap_or(0.0);
    journal
        .windows(2)
        .filter(|w| w[0]["type"] == "wait")
        .map(|w| (at(&w[0]), at(&w[1]) - at(&w[0])))
        .collect()
}

/// The lab: the 4-node lab's hosts (runbooks/labs/vsphere7-4node.toml) 32 times over, with the
/// ConnectX-5 one firmware release behind (so the burn happens) and every duration jittered.
fn inventory(scale: u32, seed: u64) -> String {
    let mut text = String::from(
        "[groups.esxi.vars]\nvhpc_host = \"vcenter\"\n\n[groups.guests.vars]\nroce_prefix = 24\n\n",
    );
    let secs = |host: &str, what: &str, nominal: f64| nominal * factor(seed, host, what);
    let mut vms = Vec::new();
    for n in 1..=HOSTS {
        let (esx, vm) = (format!("esx{n:02}"), format!("vm{n:02}"));
        text.push_str(&format!(
            "[hosts.{esx}]\naddress = \"sim:esxi7?time_scale={scale}&reboot_secs={:.1}&vib_install_secs={:.1}&fw_burn_secs={:.1}&fw_available=16.35.2000\"\ngroups = [\"esxi\"]\nvars = {{ vm = \"{vm}\" }}\n\n",
            reboot_secs(&esx, seed),
            secs(&esx, "vib", VIB_INSTALL),
            secs(&esx, "burn", FW_BURN),
        ));
        text.push_str(&format!(
            "[hosts.{vm}]\naddress = \"sim:rhel8?time_scale={scale}&reboot_secs={:.1}&ofed_install_secs={:.1}&esxi={esx}&ib_switch=ib-sw01&eth_switch=eth-sw01&roce_mtu=1500&seed={seed}\"\ngroups = [\"guests\"]\nvars = {{ roce_ip = \"192.168.{}.{}\", esxi_host = \"{esx}\" }}\n\n",
            reboot_secs(&vm, seed),
            secs(&vm, "ofed", OFED_INSTALL),
            5 + n / 200,
            n % 200 + 1,
        ));
        // Registered on its ESXi host, which then cannot enter maintenance mode while it runs.
        vms.push(format!("{vm}@{esx}"));
    }
    text.push_str(&format!(
        "[hosts.vcenter]\naddress = \"sim:esxi7?role=vcenter&time_scale={scale}&vm_power_secs={:.1}&vms={}\"\ngroups = [\"management\"]\n",
        secs("vcenter", "power", VM_POWER),
        vms.join(",")
    ));
    text
}

/// The host's reboot, simulated seconds.
fn reboot_secs(host: &str, seed: u64) -> f64 {
    let nominal = if host.starts_with("esx") {
        ESXI_REBOOT
    } else {
        VM_BOOT
    };
    nominal * factor(seed, host, "reboot")
}

/// A factor in 1 ± JITTER drawn from the seed, the host and the operation, so a seed always
/// gives the same lab.
fn factor(seed: u64, host: &str, what: &str) -> f64 {
    let unit = cairn_tests::seeded_unit(seed, &format!("{host}\0{what}"));
    1.0 + JITTER * (2.0 * unit - 1.0)
}

/// Simulated seconds as `Hh MMm`.
fn minutes(secs: f64) -> String {
    let total = (secs / 60.0).round() as u64;
    format!("{}h {:02}m", total / 60, total % 60)
}
