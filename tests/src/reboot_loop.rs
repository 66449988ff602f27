//! The reboot-loop breaker on every builtin that stages a change for the next boot: with a
//! simulator fault that makes the change not take, a runbook that would stage it again and
//! reboot until it sticks reboots once, then the host fails naming what did not apply and what
//! the host showed; a resume checks again without another reboot.

use cairn_tests::{Lab, records};

/// A runbook that loops as a naive one would: stage, reboot, stage again while it still
/// changes something. The breaker must end it after the first reboot.
fn looping(stage_on: &str, change: &str) -> String {
    format!(
        r#"stage "change" on {stage_on} {{
    for attempt in 0..3 {{
        let r = {change};
        if !r.changed {{ break; }}
        reboot_if_pending();
    }}
}}
"#
    )
}

fn lab(host: &str, group: &str, address: &str, book: &str) -> Lab {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        &format!("[hosts.{host}]\naddress = \"{address}\"\ngroups = [\"{group}\"]\n"),
    );
    lab.write("book.rhai", book);
    lab
}

/// `reboot` actions in the newest run's journal of `host`.
fn journaled_reboots(lab: &Lab, host: &str) -> usize {
    records(&lab.journal(host), "intent")
        .iter()
        .filter(|r| r["data"]["builtin"] == "reboot")
        .count()
}

/// A diagnostic's text without its wrapping and frame (`│` at each wrapped line's start).
fn flat(text: &str) -> String {
    text.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the book: the host fails with `expected` after `reboots` reboots in all (the journal
/// and the simulator agree); a resume fails the same way and reboots no more.
fn fails_after_one_reboot(lab: &Lab, host: &str, reboots: usize, expected: &[&str]) {
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for text in expected {
        assert!(
            flat(&run.stderr).contains(text),
            "no `{text}` in:\n{}",
            run.stderr
        );
    }
    assert_eq!(journaled_reboots(lab, host), reboots, "{}", run.stderr);
    assert_eq!(lab.sim_count(host, &["reboot"]), reboots);
    let after = records(&lab.journal(host), "intent")
        .iter()
        .filter(|r| r["data"]["builtin"] == "after_reboot")
        .count();
    assert!(after >= 1, "the check after the reboot is journaled");
    let again = lab.cairn(&["resume"]);
    assert_ne!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert!(
        flat(&again.stderr).contains(expected[0]),
        "{}\n{}",
        again.stdout,
        again.stderr
    );
    assert_eq!(lab.sim_count(host, &["reboot"]), reboots, "no reboot loop");
}

#[test]
fn module_parameters_the_host_loses_at_boot_fail_after_one_reboot() {
    let lab = lab(
        "esx01",
        "esxi",
        "sim:esxi7?clock=virtual&reboot_secs=120&fault_ignore_staged_module_parameters=nmlx5_core",
        &looping("esxi", r#"esxcli::module_parameters_set("nmlx5_core", "")"#),
    );
    fails_after_one_reboot(
        &lab,
        "esx01",
        1,
        &[
            "esxcli nmlx5_core module parameters is still `max_vfs=8,8` after the reboot at",
            "the host did not keep them across the reboot",
        ],
    );
}

#[test]
fn a_vib_the_host_boots_without_fails_after_one_reboot() {
    let lab = lab(
        "esx01",
        "esxi",
        "sim:esxi7?clock=virtual&reboot_secs=120&fault_ignore_staged_vibs=mft",
        &looping(
            "esxi",
            r#"esxcli::vib_install("/vmfs/volumes/nfs/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{ force: true })"#,
        ),
    );
    fails_after_one_reboot(
        &lab,
        "esx01",
        1,
        &[
            "esxcli VIB mft 4.22.1.11",
            "is still not in the image after the reboot at",
            "the host booted without the installed image",
        ],
    );
}

#[test]
fn firmware_the_adapter_does_not_load_fails_after_one_reboot() {
    let book = format!(
        r#"stage "tools" on esxi {{
    esxcli::vib_install("/vmfs/volumes/nfs/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{{ force: true }});
    esxcli::vib_install("/vmfs/volumes/nfs/nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", #{{ force: true }});
    reboot_if_pending();
    mst::start();
}}
{}"#,
        looping(
            "esxi",
            r#"mlxfwmanager::update("3b:00.0", #{ online: true })"#
        )
    );
    let lab = lab(
        "esx01",
        "esxi",
        "sim:esxi7?clock=virtual&reboot_secs=120&fw_available=16.35.2000&fault_ignore_staged_firmware=true",
        &book,
    );
    // The tools' reboot, then the firmware's: never a third.
    fails_after_one_reboot(
        &lab,
        "esx01",
        2,
        &[
            "mlxfwmanager 3b:00.0 firmware is still 16.32.1010 after the reboot at",
            "the adapter did not load the burnt 16.35.2000",
        ],
    );
}

/// A RHEL guest `compute-01` whose kernel does not load the OFED drivers installed for the
/// next boot, looping on `install` until its drivers load.
fn guest_ignoring_staged_ofed(install: &str) -> Lab {
    lab(
        "compute-01",
        "guests",
        "sim:rhel8?clock=virtual&reboot_secs=60&fault_ignore_staged_ofed=true",
        &looping("guests", install),
    )
}

#[test]
fn ofed_drivers_the_kernel_does_not_load_fail_after_one_reboot() {
    let lab = guest_ignoring_staged_ofed(
        r#"ofed::install("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz")"#,
    );
    fails_after_one_reboot(
        &lab,
        "compute-01",
        1,
        &[
            "ofed 5.4-3.0.3.0 HCA driver is still not loaded",
            "after the reboot at",
            "the kernel did not load the installed OFED modules",
        ],
    );
}

#[test]
fn doca_drivers_the_kernel_does_not_load_fail_after_one_reboot() {
    let lab = guest_ignoring_staged_ofed(
        r#"ofed::install_doca("/nfs/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm")"#,
    );
    fails_after_one_reboot(
        &lab,
        "compute-01",
        1,
        &[
            "ofed 25.01 HCA driver is still not loaded",
            "the kernel did not load the installed OFED modules",
        ],
    );
}

/// Without the faults the same looping books stage once, reboot once and finish: the breaker
/// fails only what did not take.
#[test]
fn changes_that_take_pass_the_check_after_their_one_reboot() {
    for (host, group, address, change, name) in [
        (
            "esx01",
            "esxi",
            "sim:esxi7?clock=virtual&reboot_secs=120",
            r#"esxcli::module_parameters_set("nmlx5_core", "")"#,
            "esxcli::module_parameters_set",
        ),
        (
            "esx01",
            "esxi",
            "sim:esxi7?clock=virtual&reboot_secs=120",
            r#"esxcli::vib_install("/vmfs/volumes/nfs/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", #{ force: true })"#,
            "esxcli::vib_install",
        ),
        (
            "compute-01",
            "guests",
            "sim:rhel8?clock=virtual&reboot_secs=60",
            r#"ofed::install("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz")"#,
            "ofed::install",
        ),
    ] {
        let lab = lab(host, group, address, &looping(group, change));
        let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
        assert_eq!(run.code, 0, "{change}\n{}\n{}", run.stdout, run.stderr);
        assert_eq!(journaled_reboots(&lab, host), 1, "{change}");
        let checked = records(&lab.journal(host), "intent")
            .iter()
            .filter(|r| r["data"]["builtin"] == "after_reboot")
            .count();
        assert_eq!(checked, 1, "{change}: one check after the reboot");
        // The journal name comes from the registration and is the one old journals hold.
        let journal = lab.journal(host);
        let names: Vec<&str> = records(&journal, "intent")
            .iter()
            .filter_map(|r| r["data"]["builtin"].as_str())
            .filter(|b| *b != "reboot" && *b != "after_reboot")
            .collect();
        assert_eq!(names, [name, name], "{change}: staged, then found done");
    }
}

/// A journal written before a builtin left its check after the reboot holds no `after_reboot`
/// there: resuming it replays past the reboot and goes on, instead of diverging at a check the
/// journal never had.
#[test]
fn a_journal_from_before_the_checks_resumes_without_diverging() {
    let lab = lab(
        "compute-01",
        "guests",
        "sim:rhel8?clock=virtual&reboot_secs=60&fail_once=ibstatus",
        r#"stage "driver" on guests {
    ofed::install("/nfs/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64.tgz");
    reboot_if_pending();
    ib::status();
}
"#,
    );
    let first = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(first.code, 0, "ibstatus fails once: {}", first.stderr);
    // Make the journal the one a cairn without the check wrote: no `after_reboot` action,
    // and the actions after it one number lower.
    let id = lab.runs().pop().unwrap_or_else(|| panic!("no run"));
    let path = lab
        .path()
        .join(".cairn/runs")
        .join(id)
        .join("compute-01.jsonl");
    let journal = lab.journal("compute-01");
    let check = records(&journal, "intent")
        .iter()
        .find(|r| r["data"]["builtin"] == "after_reboot")
        .and_then(|r| r["data"]["seq"].as_u64())
        .unwrap_or_else(|| panic!("no after_reboot in the journal"));
    let mut older = String::new();
    for mut record in journal {
        let seq = record["data"]["seq"].as_u64();
        if seq == Some(check) {
            continue;
        }
        if let Some(seq) = seq.filter(|s| *s > check) {
            record["data"]["seq"] = (seq - 1).into();
        }
        older.push_str(&record.to_string());
        older.push('\n');
    }
    std::fs::write(&path, older).unwrap_or_else(|e| panic!("{e}"));
    lab.cairn(&["resume"]).succeeds();
    assert_eq!(lab.sim_count("compute-01", &["reboot"]), 1);
}
