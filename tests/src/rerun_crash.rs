//! A kill at every journal write of a second, idempotent run of the recipe, then resume: hosts
//! that were already set up are rebooted by nothing and get no non-idempotent command, since a
//! probe tells "was already so" from "this action did it".

use std::time::{Duration, Instant};

use cairn_tests::{Lab, records};

use crate::crash::{crashed_at, resume_by_id};

const RUNBOOK: &str = "runbooks/vsphere7-ib-roce-passthrough.rhai";
const INVENTORY: &str = "runbooks/labs/vsphere7-4node.toml";
const HOSTS: [&str; 9] = [
    "esx01",
    "esx02",
    "esx03",
    "esx04",
    "compute-01",
    "compute-02",
    "compute-03",
    "compute-04",
    "vcenter",
];

/// Whether a command changes a host in a way that must not happen twice: installs, reboots,
/// firmware and configuration burns, passthrough changes.
fn non_idempotent(argv: &[String]) -> bool {
    let program = argv
        .first()
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    let rest: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
    let has = |word: &str| rest.contains(&word);
    match program {
        "esxcli" => {
            (rest.starts_with(&["software", "vib", "install"]) && !has("--dry-run"))
                || rest.starts_with(&["system", "shutdown", "reboot"])
                || rest.starts_with(&["hardware", "pci", "pcipassthru", "set"])
                || rest.starts_with(&["system", "module", "parameters", "set"])
        }
        "reboot" | "mlnxofedinstall" => true,
        "mlxconfig" => has("set"),
        "mlxfwmanager" => has("-u") || has("--update"),
        "flint" => has("burn") || has("b"),
        "vhpc_toolkit" => rest.first() == Some(&"passthru") && has("--add"),
        _ => false,
    }
}

/// Non-idempotent commands per host, from the simulated hosts' own logs.
fn critical(lab: &Lab) -> Vec<(String, Vec<Vec<String>>)> {
    HOSTS
        .iter()
        .map(|h| {
            let commands = lab.sim_commands(h);
            let picked = commands.into_iter().filter(|c| non_idempotent(c)).collect();
            ((*h).to_owned(), picked)
        })
        .collect()
}

/// Every `stride`-th write (`CAIRN_RECUT_STRIDE`, default 8; 1 is every write) of the second
/// run; the first run sets the hosts up, so the second changes nothing.
#[test]
fn a_kill_at_any_write_of_an_idempotent_rerun_reboots_nothing_on_resume() {
    let template = Lab::shipped();
    template
        .cairn(&["run", RUNBOOK, "-i", INVENTORY])
        .succeeds();
    let set_up = critical(&template);
    assert!(
        set_up.iter().any(|(_, c)| !c.is_empty()),
        "the first run installs and reboots"
    );
    // Run ids are per second: the second run must get its own.
    std::thread::sleep(Duration::from_millis(1100));
    let measure = template.copy();
    measure.cairn(&["run", RUNBOOK, "-i", INVENTORY]).succeeds();
    assert_eq!(
        critical(&measure),
        set_up,
        "an uninterrupted rerun changes nothing"
    );
    let total: usize = HOSTS
        .iter()
        .chain(&["controller"])
        .map(|h| measure.journal(h).len())
        .sum();
    assert!(total > 100, "the second run writes {total} records");
    let stride = std::env::var("CAIRN_RECUT_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8usize)
        .max(1);
    let started = Instant::now();
    let mut trials = 0;
    for k in (1..=total).step_by(stride) {
        let lab = template.copy();
        let fault = format!("{k}:after");
        if !crashed_at(&lab, &["run", RUNBOOK, "-i", INVENTORY], &fault) {
            continue;
        }
        trials += 1;
        resume_by_id(&lab, &fault);
        for host in HOSTS {
            let ends = records(&lab.journal(host), "host_end").len();
            assert!(ends >= 1, "{fault}: {host} ended");
        }
        let extra: Vec<(String, Vec<Vec<String>>)> = critical(&lab)
            .into_iter()
            .zip(&set_up)
            .filter(|((_, now), (_, before))| now != before)
            .map(|((host, now), (_, before))| (host, now[before.len().min(now.len())..].to_vec()))
            .collect();
        assert!(extra.is_empty(), "{fault}: the resume ran {extra:?}");
    }
    eprintln!(
        "{trials} kills of {total} writes (every {stride}th) resumed in {:.1?}",
        started.elapsed()
    );
    assert!(
        trials > total / stride / 2,
        "{trials} of the kills hit the run"
    );
}
