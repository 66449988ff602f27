//! The shipped recipes end to end on their shipped labs, run as a user types them
//! (`cairn run runbooks/RECIPE -i runbooks/labs/LAB`): the whole VMware guide on 4 ESXi hosts
//! and their 4 VMs, the ESXi tuning, and the VMA comparison.

use std::process::Stdio;
use std::time::{Duration, Instant};

use cairn_tests::Lab;

const WHOLE_GUIDE: [&str; 4] = [
    "run",
    "runbooks/vsphere7-ib-roce-passthrough.rhai",
    "-i",
    "runbooks/labs/vsphere7-4node.toml",
];
const ESXI: [&str; 4] = ["esx01", "esx02", "esx03", "esx04"];
const VMS: [&str; 4] = ["compute-01", "compute-02", "compute-03", "compute-04"];

fn assert_the_guide_is_done(lab: &Lab) {
    for host in ESXI {
        assert_eq!(lab.sim_count(host, &["reboot"]), 3, "{host} reboots");
        let cx5 = &lab.sim_state(host)["tools"]["mlxconfig"]["devices"]["mt4119_pciconf1"];
        assert_eq!(cx5["LINK_TYPE_P1"]["current"], 1, "{host}: {cx5}");
        assert_eq!(cx5["LINK_TYPE_P2"]["current"], 2, "{host}: {cx5}");
    }
    for vm in VMS {
        assert_eq!(lab.sim_count(vm, &["reboot"]), 1, "{vm} reboots");
        let installs = lab
            .sim_commands(vm)
            .iter()
            .filter(|c| c.first().is_some_and(|p| p.ends_with("/mlnxofedinstall")))
            .count();
        assert_eq!(installs, 1, "{vm} installs OFED once");
    }
}

#[test]
fn the_whole_guide_on_four_esxi_hosts_and_their_vms_then_a_second_run_changes_nothing() {
    let lab = Lab::shipped();
    let run = lab.cairn(&WHOLE_GUIDE).succeeds();
    assert_the_guide_is_done(&lab);
    // The validation table: both pairs at about 96 Gb/s on IB and RoCE, RoCE at MTU 4096.
    for pair in ["compute-01 -> compute-02", "compute-03 -> compute-04"] {
        let row = run
            .stdout
            .lines()
            .find(|l| l.contains(&format!("| {pair} |")))
            .unwrap_or_else(|| panic!("no row for {pair}:\n{}", run.stdout));
        // pair | IB Gb/s | IB us | RoCE Gb/s | RoCE us | RoCE MTU
        let cells: Vec<&str> = row
            .split('|')
            .map(str::trim)
            .skip_while(|c| *c != pair)
            .collect();
        let number = |i: usize| cells.get(i).and_then(|c| c.parse::<f64>().ok());
        assert!(number(1).is_some_and(|g| g > 94.0), "IB bandwidth: {row}");
        assert!(number(2).is_some_and(|us| us < 1.2), "IB latency: {row}");
        assert!(number(3).is_some_and(|g| g > 94.0), "RoCE bandwidth: {row}");
        assert!(number(4).is_some_and(|us| us < 2.2), "RoCE latency: {row}");
        assert_eq!(cells.get(5).copied(), Some("4096"), "RoCE MTU: {row}");
    }
    // The VMs' RDMA devices came from their ESXi hosts' passthrough.
    run.stdout_has(
        "compute-01     │ compute-01: mlx5_0 port 1 ACTIVE LinkUp 100.0 Gb/sec (4X EDR) InfiniBand",
    );

    lab.cairn(&WHOLE_GUIDE).succeeds();
    for host in ESXI.iter().chain(VMS.iter()) {
        assert_eq!(lab.changes(host), Vec::<String>::new(), "{host} changed");
    }
    assert_the_guide_is_done(&lab);
}

#[test]
fn roce_left_at_mtu_1500_fails_the_roce_threshold_naming_hosts_and_numbers() {
    let lab = Lab::shipped();
    let mut args = WHOLE_GUIDE.to_vec();
    args.extend(["--param", "roce_mtu=1500"]);
    let run = lab.cairn(&args).fails(1);
    let text = run.output();
    assert!(
        text.contains(
            "compute-01 -> compute-02 mlx5_1: RoCE send bandwidth 75.66 Gb/s at 8388608 bytes (MTU 1024), expected at least 90.0 Gb/s"
        ),
        "{text}"
    );
    assert!(
        run.stdout
            .contains("9 done, 0 failed, 0 stopped; the controller failed"),
        "{text}"
    );
    // InfiniBand is not affected: no IB failure is reported.
    assert!(!text.contains("InfiniBand send bandwidth"), "{text}");
}

#[test]
fn a_vm_whose_esxi_host_did_not_pass_the_ports_through_has_no_rdma_device() {
    let lab = Lab::shipped();
    // esx04 attaches its ports to another VM than compute-04's.
    let inventory = std::fs::read_to_string(lab.path().join("runbooks/labs/vsphere7-4node.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let broken = inventory
        .replacen("vm = \"compute-04\"", "vm = \"other-vm\"", 1)
        .replacen(
            "compute-04@esx04\"\ngroups",
            "compute-04,other-vm@esx04\"\ngroups",
            1,
        );
    assert_ne!(broken, inventory);
    lab.write("runbooks/labs/vsphere7-4node.toml", &broken);
    let run = lab.cairn(&WHOLE_GUIDE).fails(1);
    // compute-04 fails, as ibstatus fails on a guest without an RDMA device; the acceptance
    // then names it untested instead of passing on the others.
    let text = run.output();
    assert!(
        text.contains("`compute-04`: `ibstatus` exited with 1: Fatal error:  device 'mlx5_0': sys"),
        "{text}"
    );
    assert!(
        text.contains("3 of 4 guests tested in 2 pair(s); compute-04 untested: failed"),
        "{text}"
    );
    assert_eq!(
        text.matches("FAILED:").count(),
        2,
        "compute-04 and the verdict: {text}"
    );
}

#[test]
fn a_failed_vm_is_named_untested_and_its_partners_are_still_tested() {
    let lab = Lab::shipped();
    edit_lab(
        &lab,
        "runbooks/labs/vsphere7-4node.toml",
        "esxi=esx02&",
        "esxi=esx02&fail_once=mlnxofedinstall&",
    );
    let run = lab.cairn(&WHOLE_GUIDE).fails(1);
    let text = run.output();
    // compute-04 was left out before: its pair's order moved once compute-02 left the list.
    for pair in ["compute-01 -> compute-03", "compute-04 -> compute-01"] {
        assert!(text.contains(pair), "{pair} tested: {text}");
    }
    assert!(
        text.contains("3 of 4 guests tested in 2 pair(s); compute-02 untested: failed:"),
        "the verdict counts the guests: {text}"
    );
    assert!(
        text.contains("report::verdict {\"ok\":false,\"text\":\"3 of 4 guests"),
        "no passing verdict: {text}"
    );
    let report = lab.path().join("report.html");
    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let page = std::fs::read_to_string(report).unwrap_or_default();
    assert!(
        page.contains("compute-02 untested"),
        "the report's verdict says so"
    );
}

/// Runs `args` in the lab, SIGKILLs cairn once one of `hosts` is rebooting (their reboots must
/// take real time), checks the kill landed there, and resumes the run to its end.
fn kill_during_a_reboot_and_resume(lab: &Lab, args: &[&str], hosts: &[&str]) -> cairn_tests::Run {
    let mut child = lab
        .command(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let rebooting = || hosts.iter().any(|h| lab.sim_count(h, &["reboot"]) == 1);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !rebooting() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap_or_else(|e| panic!("SIGKILL: {e}"));
    let _ = child.wait();
    assert!(rebooting(), "killed during a reboot of one of {hosts:?}");
    lab.cairn(&["resume"]).succeeds()
}

/// Rewrites a lab inventory of the shipped lab.
fn edit_lab(lab: &Lab, path: &str, from: &str, to: &str) {
    let inventory =
        std::fs::read_to_string(lab.path().join(path)).unwrap_or_else(|e| panic!("{e}"));
    let edited = inventory.replace(from, to);
    assert_ne!(edited, inventory, "{from} is in {path}");
    lab.write(path, &edited);
}

#[test]
fn the_whole_guide_killed_during_the_vms_reboot_resumes_to_the_same_end() {
    let lab = Lab::shipped();
    // The VMs reboot on real clocks, for 3 s, so that the kill lands inside a reboot.
    edit_lab(
        &lab,
        "runbooks/labs/vsphere7-4node.toml",
        "sim:rhel8?clock=virtual&reboot_secs=90",
        "sim:rhel8?reboot_secs=3",
    );
    let resumed = kill_during_a_reboot_and_resume(&lab, &WHOLE_GUIDE, &VMS);
    assert_the_guide_is_done(&lab);
    resumed.stdout_has("| compute-03 -> compute-04 |");
}

const TUNING: [&str; 4] = [
    "run",
    "runbooks/esxi-hpc-tuning.rhai",
    "-i",
    "runbooks/labs/esxi-4.toml",
];

fn assert_tuned(lab: &Lab) {
    for host in ESXI {
        assert_eq!(lab.sim_count(host, &["reboot"]), 1, "{host} reboots once");
        let esxcli = &lab.sim_state(host)["tools"]["esxcli"];
        assert_eq!(
            esxcli["module_parameters"]["nmlx5_core"], "max_vfs=8,8 num_rings_per_rss_queue=4",
            "{host}: the driver's other parameters are kept"
        );
        assert_eq!(
            esxcli["advanced"]["/Power/CpuPolicy"]["string"],
            "High Performance"
        );
        assert_eq!(
            esxcli["advanced"]["/Net/NetNetqNumaIOCpuPinThreshold"]["int"],
            100
        );
    }
    let vms = &lab.sim_state("vcenter")["tools"]["vhpc_toolkit"]["vms"];
    for n in 1..=4 {
        let vm = &vms[format!("hpc-vm0{n}")];
        assert_eq!(vm["latency"], "high", "{vm}");
        assert_eq!(
            (
                vm["cpu_reservation"].as_bool(),
                vm["memory_reservation"].as_bool()
            ),
            (Some(true), Some(true))
        );
    }
}

#[test]
fn the_tuning_recipe_sets_and_checks_every_knob_then_a_second_run_changes_nothing() {
    let lab = Lab::shipped();
    let run = lab.cairn(&TUNING).succeeds();
    assert_tuned(&lab);
    run.stdout_has("esx03          │ | RSS rings | 4 | 4 |");
    lab.cairn(&TUNING).succeeds();
    for host in ESXI {
        assert_eq!(lab.changes(host), Vec::<String>::new(), "{host} changed");
    }
    assert_tuned(&lab);
    // A value out of range is refused by esxcli itself, and named.
    let mut args = TUNING.to_vec();
    args.extend(["--param", "numa_io_threshold=300"]);
    let wrong = lab.cairn(&args).fails(1);
    assert!(
        wrong.output().contains("NetNetqNumaIOCpuPinThreshold"),
        "{}",
        wrong.output()
    );
}

#[test]
fn the_tuning_recipe_killed_during_the_reboot_resumes_with_one_reboot_per_host() {
    let lab = Lab::shipped();
    edit_lab(
        &lab,
        "runbooks/labs/esxi-4.toml",
        "reboot_secs=120&clock=virtual",
        "reboot_secs=3",
    );
    kill_during_a_reboot_and_resume(&lab, &TUNING, &ESXI);
    assert_tuned(&lab);
}

/// The shipped VMA comparison on its lab, as the guide runs it.
pub(crate) const VMA: [&str; 4] = [
    "run",
    "runbooks/vma-latency.rhai",
    "-i",
    "runbooks/labs/vma-2node.toml",
];

#[test]
fn the_vma_recipe_compares_kernel_and_vma_latency_as_the_guide_does() {
    let lab = Lab::shipped();
    let run = lab.cairn(&VMA).succeeds();
    let row = run
        .stdout
        .lines()
        .find(|l| l.contains("| average usec |"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let cells: Vec<f64> = row
        .split('|')
        .filter_map(|c| c.trim().parse().ok())
        .collect();
    assert_eq!(cells.len(), 2, "{row}");
    assert!((6.0..7.0).contains(&cells[0]), "kernel: {row}");
    assert!((0.9..1.2).contains(&cells[1]), "VMA: {row}");
    run.stdout_has("| Percentile | Kernel | VMA |");
    // The server ran under libvma the second time, as the guide starts it.
    let servers: Vec<Vec<String>> = lab
        .sim_commands("vma-server-03")
        .into_iter()
        .filter(|c| c.iter().any(|a| a == "sockperf") && c.iter().any(|a| a == "server"))
        .collect();
    assert_eq!(servers.len(), 2, "{servers:?}");
    assert!(
        servers[1].iter().any(|a| a == "LD_PRELOAD=libvma.so"),
        "{servers:?}"
    );
    lab.cairn(&VMA).succeeds();
    for host in ["vma-server-03", "vma-client-29"] {
        assert_eq!(lab.changes(host), Vec::<String>::new(), "{host} changed");
    }
    // A stricter threshold fails with both numbers.
    let mut args = VMA.to_vec();
    args.extend(["--param", "max_vma_us=0.5"]);
    let strict = lab.cairn(&args).fails(1);
    assert!(
        strict
            .output()
            .contains("vma-client-29 -> vma-server-03 11.4.3.3: VMA latency 1.0"),
        "{}",
        strict.output()
    );
    assert!(
        strict.output().contains("expected at most 0.5 us"),
        "{}",
        strict.output()
    );
}

const FABRIC: [&str; 4] = [
    "run",
    "runbooks/ib-fabric-validate.rhai",
    "-i",
    "runbooks/labs/fabric-4node.toml",
];

/// The number of the journal write that records the controller's last outcome, in a whole run
/// of `args` on a fresh lab whose instances are `hosts`: the controller's last stage runs after
/// every host ended, so its records are the run's last writes.
fn last_controller_outcome_write(args: &[&str], hosts: &[&str]) -> usize {
    let lab = Lab::shipped();
    lab.cairn(args).succeeds();
    let total: usize = hosts.iter().map(|h| lab.journal(h).len()).sum();
    let controller = lab.journal("controller");
    // The report's tables and verdicts come after the tests: the last test is what is cut.
    let published: Vec<&serde_json::Value> = controller
        .iter()
        .filter(|r| r["type"] == "intent")
        .filter(|r| {
            r["data"]["builtin"]
                .as_str()
                .is_some_and(|b| b.starts_with("report::"))
        })
        .map(|r| &r["data"]["seq"])
        .collect();
    let last = controller
        .iter()
        .rposition(|r| r["type"] == "outcome" && !published.contains(&&r["data"]["seq"]))
        .unwrap_or_else(|| panic!("the controller has no outcome"));
    total - (controller.len() - 1 - last)
}

/// Whether the instance's newest journal has an action whose outcome is missing.
fn outcome_missing(lab: &Lab, host: &str) -> bool {
    let journal = lab.journal(host);
    cairn_tests::records(&journal, "intent").len() > cairn_tests::records(&journal, "outcome").len()
}

/// Runs `args` with the process ending abruptly just before its journal write number `write`
/// (a test's effect done, its outcome not recorded), then resumes the run to its end.
fn crash_before_write_and_resume(lab: &Lab, args: &[&str], write: usize) -> cairn_tests::Run {
    let point = format!("{write}:before");
    lab.cairn_with(args, &[("CAIRN_FAULT_EXIT_AT_WRITE", point.as_str())])
        .fails(137);
    assert!(
        outcome_missing(lab, "controller"),
        "the crash lands in a controller's test"
    );
    lab.cairn(&["resume"]).succeeds()
}

#[test]
fn the_fabric_recipe_crashed_during_a_bandwidth_test_resumes_with_every_pair_measured() {
    let nodes = ["node139", "node140", "node141", "node142", "controller"];
    let write = last_controller_outcome_write(&FABRIC, &nodes);
    let lab = Lab::shipped();
    // Every test of the matrix ran, none is recorded.
    crash_before_write_and_resume(&lab, &FABRIC, write);
    let controller = lab.journal("controller");
    let measured = cairn_tests::records(&controller, "outcome")
        .iter()
        .filter(|o| o["data"]["ok"] == true)
        .filter_map(|o| o["data"]["result"].as_array())
        .flatten()
        .filter(|pair| pair["ok"] == true)
        .count();
    assert_eq!(measured, 6, "every pair of the 4 nodes measured");
    for node in &nodes[..4] {
        let running = &lab.sim_state(node)["tools"]["processes"]["running"];
        assert_eq!(
            running.as_object().map(serde_json::Map::len),
            Some(0),
            "{node}: {running}"
        );
    }
}

#[test]
fn the_vma_recipe_crashed_during_a_ping_pong_resumes_to_its_comparison() {
    let hosts = ["vma-server-03", "vma-client-29", "controller"];
    let write = last_controller_outcome_write(&VMA, &hosts);
    let lab = Lab::shipped();
    // The VMA ping-pong ran, its outcome is not recorded.
    let resumed = crash_before_write_and_resume(&lab, &VMA, write);
    resumed.stdout_has("| average usec |");
    let running = &lab.sim_state("vma-server-03")["tools"]["processes"]["running"];
    assert_eq!(
        running.as_object().map(serde_json::Map::len),
        Some(0),
        "{running}"
    );
}

#[test]
fn every_shipped_runbook_passes_cairn_check() {
    let lab = Lab::shipped();
    let mut books: Vec<String> = std::fs::read_dir(lab.path().join("runbooks"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rhai"))
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .collect();
    books.sort();
    assert!(books.len() >= 7, "{books:?}");
    for book in books {
        let path = format!("runbooks/{book}");
        let run = lab.cairn(&["check", &path]);
        assert_eq!(run.code, 0, "{path}: {}", run.output());
        assert!(run.stdout.contains(": ok"), "{path}: {}", run.stdout);
    }
}

/// When `host`'s journal shows it entering and leaving maintenance mode (wall clock).
fn maintenance_window(journal: &[serde_json::Value]) -> (u64, u64) {
    let calls: Vec<(u64, bool)> = cairn_tests::records(journal, "intent")
        .into_iter()
        .filter(|i| i["data"]["builtin"] == "esxcli::maintenance_mode_set")
        .filter_map(|i| {
            Some((
                i["data"]["seq"].as_u64()?,
                i["data"]["args"]["on"].as_bool()?,
            ))
        })
        .collect();
    let at = |kind: &str, on: bool| {
        let seq = calls.iter().find(|(_, o)| *o == on).map(|(s, _)| *s);
        cairn_tests::records(journal, kind)
            .into_iter()
            .find(|r| r["data"]["seq"].as_u64() == seq)
            .and_then(|r| r["data"]["at"].as_u64())
            .unwrap_or_else(|| panic!("no {kind} of maintenance_mode_set({on})"))
    };
    (at("intent", true), at("outcome", false))
}

#[test]
fn with_rolling_one_the_esxi_hosts_go_down_one_at_a_time_with_three_reboots_each() {
    let lab = Lab::shipped();
    let run = lab.cairn(&WHOLE_GUIDE).succeeds();
    assert_the_guide_is_done(&lab);
    run.stdout_has("batch 4/4: esx04");
    let hosts = ["esx01", "esx02", "esx03", "esx04"];
    let windows: Vec<(u64, u64)> = hosts
        .iter()
        .map(|h| maintenance_window(&lab.journal(h)))
        .collect();
    for (i, a) in windows.iter().enumerate() {
        assert_eq!(lab.sim_count(hosts[i], &["reboot"]), 3, "{}", hosts[i]);
        for b in &windows[i + 1..] {
            assert!(
                a.1 <= b.0 || b.1 <= a.0,
                "two hosts in maintenance at once: {a:?} {b:?}"
            );
        }
    }
}

#[test]
fn the_tuning_recipe_reboots_one_esxi_host_at_a_time_in_maintenance_mode() {
    let lab = Lab::shipped();
    lab.cairn(&TUNING).succeeds();
    assert_tuned(&lab);
    let windows: Vec<(u64, u64)> = ESXI
        .iter()
        .map(|h| maintenance_window(&lab.journal(h)))
        .collect();
    for (i, a) in windows.iter().enumerate() {
        assert_eq!(lab.sim_count(ESXI[i], &["reboot"]), 1, "{}", ESXI[i]);
        for b in &windows[i + 1..] {
            assert!(
                a.1 <= b.0 || b.1 <= a.0,
                "two hosts in maintenance at once: {a:?} {b:?}"
            );
        }
    }
}

#[test]
fn the_readiness_gates_fail_a_host_with_what_they_saw() {
    let lab = Lab::shipped();
    lab.write(
        "runbooks/gates.rhai",
        r#"
import "ready" as ready;

stage "gates" on esxi {
    ready::nic_driver_loaded("nmlx5_core");
    vhpc::power(host().vars.vm, "off");
    ready::vm_powered_on(host().vars.vm);
}
"#,
    );
    let run = lab.cairn(&[
        "run",
        "runbooks/gates.rhai",
        "-i",
        "runbooks/labs/esxi-4.toml",
    ]);
    assert_ne!(run.code, 0, "{}", run.output());
    run.stderr_has("is poweredOff, not poweredOn");

    lab.write(
        "runbooks/driver.rhai",
        "import \"ready\" as ready;\nstage \"gates\" on esxi { ready::nic_driver_loaded(\"nmlx4_en\"); }\n",
    );
    let run = lab.cairn(&[
        "run",
        "runbooks/driver.rhai",
        "-i",
        "runbooks/labs/esxi-4.toml",
    ]);
    assert_ne!(run.code, 0, "{}", run.output());
    run.stderr_has("no NIC uses nmlx4_en");
}
