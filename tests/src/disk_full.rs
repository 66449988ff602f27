//! A journal write that fails (a full disk) says why and stops the whole run, which resumes to
//! its end once there is space again.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cairn_tests::{Immutable, Lab, records};
use serde_json::Value;

use crate::crash::{HOSTS, assert_exactly_once, lab, resume};
use crate::hangs::within;

/// Text without miette's line wrapping and frame.
fn flat(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The highest stage index a journal entered.
fn last_stage(journal: &[Value]) -> u64 {
    records(journal, "stage")
        .iter()
        .filter_map(|s| s["data"]["index"].as_u64())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_failed_journal_write_stops_every_host_and_the_run_resumes_to_its_end() {
    // Writes 1 and 2 are the headers, written before any host starts; from 3 on the failure
    // falls on some host's stage, intent, outcome, progress or end record.
    for k in 3..=12 {
        let lab = lab();
        let fault = format!("{k}:enospc");
        let mut command = lab.command(&["run", "book.rhai", "-i", "lab.toml"]);
        command.env("CAIRN_FAULT_EXIT_AT_WRITE", &fault);
        let run = within(command, Duration::from_secs(30), &fault);
        assert_eq!(run.code, 1, "{fault}: {}\n{}", run.stdout, run.stderr);
        assert!(
            flat(&run.stderr).contains("No space left on device"),
            "{fault}: the cause is shown\n{}",
            run.stderr
        );
        assert!(
            run.stdout.contains("stopping the run"),
            "{fault}: {}",
            run.stdout
        );
        let journals: Vec<Vec<Value>> = HOSTS.iter().map(|h| lab.journal(h)).collect();
        // The host whose journal failed records nothing after the failure, so it is the one
        // without an end; the other stopped (no host passed the stage the failed one was in).
        let failed = journals
            .iter()
            .position(|j| records(j, "host_end").is_empty())
            .unwrap_or_else(|| panic!("{fault}: one journal has no end"));
        let other = &journals[1 - failed];
        assert_eq!(
            records(other, "host_end")
                .last()
                .map(|e| e["data"]["status"].clone()),
            Some("cancelled".into()),
            "{fault}: the other host stopped"
        );
        // The failed write may be the failed host's record of entering the next stage, which
        // the other host entered with it; but no further.
        assert!(
            last_stage(other) <= last_stage(&journals[failed]) + 1,
            "{fault}: the other host went on past the failed one's stage"
        );
        // The failed outcome's action did happen: `done` is the truthful answer if asked.
        resume(&lab, "done", &fault);
        assert_exactly_once(&lab, &fault);
    }
}

/// A tmpfs mounted for a test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` at `at`, or says why not (not root, no mount).
    fn mount(at: &Path, size: &str) -> Result<Self, String> {
        let uid = Command::new("id")
            .arg("-u")
            .output()
            .map_err(|e| e.to_string())?;
        if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
            return Err("not root".into());
        }
        std::fs::create_dir_all(at).map_err(|e| e.to_string())?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .output()
            .map_err(|e| e.to_string())?;
        if !mounted.status.success() {
            return Err(String::from_utf8_lossy(&mounted.stderr).into_owned());
        }
        Ok(Self(at.to_owned()))
    }

    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status();
        assert!(status.is_ok_and(|s| s.success()), "remount");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_under_the_journals_stops_the_run_and_resume_finishes_it() {
    let lab = Lab::new();
    // Stage 2 logs about 200 kB per host, more than the 96 kB disk holds.
    lab.write(
        "book.rhai",
        "stage \"one\" on all { run([\"echo\", \"one\"]); }\n\
         stage \"fill\" on all {\n\
             let x = \"\"; for j in 0..100 { x += \"xxxxxxxxxx\"; }\n\
             for i in 0..200 { log(`line ${i} ${x}`); }\n\
         }\n\
         stage \"three\" on all { run([\"echo\", \"three\"]); }\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.\"node[01-02]\"]\naddress = \"sim:linux?clock=virtual\"\n",
    );
    let small = lab.path().join("small");
    let tmpfs = match Tmpfs::mount(&small, "96k") {
        Ok(tmpfs) => tmpfs,
        Err(why) => {
            eprintln!("skipped: cannot mount a tmpfs ({why})");
            return;
        }
    };
    // Only the journals are on the small disk; the simulated hosts keep theirs on the lab's.
    let state = small.join("state");
    let sim = lab.path().join("sim");
    std::fs::create_dir_all(&state).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(&sim).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&sim, state.join("sim")).unwrap_or_else(|e| panic!("{e}"));
    let state_arg = state.display().to_string();
    let full = within(
        lab.command(&[
            "run",
            "book.rhai",
            "-i",
            "lab.toml",
            "--state-dir",
            &state_arg,
        ]),
        Duration::from_secs(30),
        "run on a full disk",
    )
    .fails(1);
    assert!(
        flat(&full.stderr).contains("No space left on device"),
        "{}",
        full.stderr
    );
    let echoes = |host: &str, word: &str| {
        std::fs::read_to_string(sim.join(host).join("commands.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(&format!("[\"echo\",\"{word}\"]")))
            .count()
    };
    for host in HOSTS {
        assert_eq!(
            echoes(host, "three"),
            0,
            "{host} stopped before stage three"
        );
    }
    tmpfs.resize("64m");
    within(
        lab.command(&["resume", "--state-dir", &state_arg]),
        Duration::from_secs(30),
        "resume with space back",
    )
    .succeeds();
    for host in HOSTS {
        assert_eq!(echoes(host, "one"), 1, "{host} echoed one once");
        assert_eq!(echoes(host, "three"), 1, "{host} echoed three once");
        let runs = state.join("runs");
        let run = std::fs::read_dir(&runs)
            .into_iter()
            .flatten()
            .flatten()
            .find(|e| e.path().is_dir())
            .map(|e| e.path())
            .unwrap_or_else(|| panic!("no run in {}", runs.display()));
        let text = std::fs::read_to_string(run.join(format!("{host}.jsonl")))
            .unwrap_or_else(|e| panic!("{e}"));
        for (n, line) in text.lines().enumerate() {
            assert!(
                serde_json::from_str::<Value>(line).is_ok(),
                "{host} line {} is whole: {line:.80}",
                n + 1
            );
        }
        assert!(
            text.trim_end().ends_with("\"status\":\"done\"}}"),
            "{host}: {text:.200}"
        );
    }
    drop(tmpfs);
}

#[test]
fn a_simulated_host_that_cannot_keep_its_state_in_a_reboot_stops_the_run_and_resume_reboots_it_once()
 {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"reboot\" on all { reboot(); }\n\
         stage \"after\" on all { run([\"echo\", \"after\"]); }\n",
    );
    lab.write(
        "lab.toml",
        "[hosts.\"node[01-02]\"]\naddress = \"sim:linux?reboot_secs=2\"\n",
    );
    let dir = |host: &str| lab.path().join(".cairn/sim").join(host);
    let reboots = |host: &str| lab.sim_count(host, &["reboot"]);
    // The state write that fails while the host reboots: its next save goes to `state.json.tmp`
    // (the simulator swaps the two files), made immutable here. A full disk fails the same
    // write (torture `repro/diskfull-A-300k-sim-reboot-enospc.txt`), but only once the state
    // outgrows the pages it has, which a small lab's state does not.
    let mut locked = Vec::new();
    let full = crate::hangs::within_after(
        lab.command(&["run", "book.rhai", "-i", "lab.toml"]),
        // Before the fix the host's reboot waited out its 600 s timeout.
        Duration::from_secs(40),
        "run whose simulated hosts cannot keep their state in their reboot",
        |_| {
            let started = std::time::Instant::now();
            while HOSTS.iter().any(|h| reboots(h) == 0) && started.elapsed().as_secs() < 20 {
                std::thread::sleep(Duration::from_millis(10));
            }
            for host in HOSTS {
                match Immutable::set(&dir(host).join("state.json.tmp")) {
                    Ok(file) => locked.push(file),
                    Err(why) => eprintln!("cannot make {host}'s state immutable: {why}"),
                }
            }
        },
    );
    if locked.len() < HOSTS.len() {
        eprintln!("skipped: no immutable files here");
        return;
    }
    let full = full.fails(1);
    assert!(
        flat(&full.stderr).contains("Operation not permitted"),
        "the cause is shown\n{}",
        full.stderr
    );
    assert!(
        !flat(&full.stderr).contains("did not come back"),
        "{}",
        full.stderr
    );
    full.stdout_has("stopping the run");
    for host in HOSTS {
        assert_eq!(lab.sim_count(host, &["echo", "after"]), 0, "{host} stopped");
    }
    drop(locked);
    within(
        lab.command(&["resume"]),
        Duration::from_secs(40),
        "resume once the state can be written",
    )
    .succeeds();
    for host in HOSTS {
        assert_eq!(
            reboots(host),
            1,
            "{host}: the resume settled its reboot by its boot id"
        );
        assert_eq!(lab.sim_count(host, &["echo", "after"]), 1, "{host} went on");
        let boots = lab.sim_state(host)["boots"].as_array().map_or(0, Vec::len);
        assert_eq!(boots, 2, "{host}: one boot, then one reboot");
    }
}
