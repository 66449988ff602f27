//! The guest and fabric runbooks on simulated guests: OFED, RoCE interface, ports, perftest
//! (VMware's guide sections 2.4 and 3.1, the blog post "InfiniBand Performance Test").

use cairn_tests::{Lab, records};
use serde_json::Value;

const GUEST_RUNBOOK: &str = include_str!("../../runbooks/guest-ib-roce-validate.rhai");
const GUEST_LAB: &str = include_str!("../../runbooks/labs/guests-2node.toml");
const FABRIC_RUNBOOK: &str = include_str!("../../runbooks/ib-fabric-validate.rhai");
const FABRIC_LAB: &str = include_str!("../../runbooks/labs/fabric-4node.toml");

/// The results of `builtin`'s successful outcomes in a journal, in order.
fn results(journal: &[Value], builtin: &str) -> Vec<Value> {
    let seqs: Vec<u64> = records(journal, "intent")
        .iter()
        .filter(|r| r["data"]["builtin"] == builtin)
        .filter_map(|r| r["data"]["seq"].as_u64())
        .collect();
    records(journal, "outcome")
        .iter()
        .filter(|r| r["data"]["ok"] == true)
        .filter(|r| r["data"]["seq"].as_u64().is_some_and(|s| seqs.contains(&s)))
        .map(|r| r["data"]["result"].clone())
        .collect()
}

fn logs(journal: &[Value]) -> String {
    records(journal, "log")
        .iter()
        .filter_map(|r| r["data"]["message"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn number(value: &Value, key: &str) -> f64 {
    value[key].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn guests_get_ofed_once_and_pass_ib_and_roce_tests() {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.copy_lib();
    lab.write("lab.toml", GUEST_LAB);
    lab.cairn(&["run", "guest.rhai", "-i", "lab.toml"])
        .succeeds();
    for guest in ["compute-02", "compute-03"] {
        assert_eq!(
            lab.sim_count(guest, &["reboot"]),
            1,
            "{guest} rebooted once"
        );
        let installs = lab.sim_count(
            guest,
            &[
                "/tmp/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64/mlnxofedinstall",
                "--force",
            ],
        );
        assert_eq!(installs, 1);
        assert_eq!(
            lab.sim_count(guest, &["dnf", "install", "-y", "kernel-modules-extra"]),
            1
        );
        assert_eq!(
            lab.sim_count(
                guest,
                &["ip", "link", "set", "dev", "ens224f1", "mtu", "9000"]
            ),
            1
        );
        let journal = lab.journal(guest);
        let text = logs(&journal);
        assert!(text.contains("MLNX_OFED_LINUX-5.4-3.0.3.0"), "{text}");
        assert!(text.contains("ens224f1 mtu 9000"), "{text}");
        assert!(
            text.contains("mlx5_0 port 1 ACTIVE LinkUp 100.0 Gb/sec (4X EDR) InfiniBand"),
            "{text}"
        );
        assert!(
            text.contains("mlx5_1 port 1 ACTIVE LinkUp 100.0 Gb/sec (4X EDR) Ethernet"),
            "{text}"
        );
        assert!(text.contains("mlx5_1 active_mtu 4096 (max 4096)"), "{text}");
    }
    let controller = lab.journal("controller");
    let bw = results(&controller, "perftest::send_bw");
    let lat = results(&controller, "perftest::send_lat");
    assert_eq!((bw.len(), lat.len()), (2, 2));
    let (ib, roce) = (&bw[0], &bw[1]);
    assert_eq!(ib["header"]["link_type"], "IB");
    assert_eq!(roce["header"]["link_type"], "Ethernet");
    assert_eq!(roce["header"]["gid_index"], 3);
    assert_eq!(roce["header"]["mtu_bytes"], 4096);
    for r in [ib, roce] {
        assert_eq!(r["rows"].as_array().map(Vec::len), Some(23));
        let avg = number(r, "avg_gbps");
        assert!((94.0..=97.5).contains(&avg), "average {avg} Gb/s");
        assert!(number(r, "peak_gbps") >= avg);
    }
    let ib_lat = number(&lat[0], "typical_us");
    let roce_lat = number(&lat[1], "typical_us");
    assert!((1.0..=1.2).contains(&ib_lat), "IB latency {ib_lat}");
    assert!((1.85..=2.1).contains(&roce_lat), "RoCE latency {roce_lat}");
    // The tables, as the guide prints them.
    let text = logs(&controller);
    assert!(
        text.contains(" #bytes   #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps]"),
        "{text}"
    );
    assert!(
        text.contains("t_typical[usec] t_avg[usec] t_stdev[usec] 99%[usec]  99.9%[usec]"),
        "{text}"
    );
    assert!(text.contains("\n 8388608  1000"), "{text}");
    // NVIDIA's "Running VMA": VMA against the kernel, over the RoCE interface.
    let sockperf = results(&controller, "sockperf::ping_pong");
    assert_eq!(sockperf.len(), 2);
    let (kernel, vma) = (
        number(&sockperf[0], "avg_us"),
        number(&sockperf[1], "avg_us"),
    );
    assert!((6.3..=6.7).contains(&kernel), "kernel {kernel} us");
    assert!((1.0..=1.12).contains(&vma), "VMA {vma} us");
    assert_eq!(sockperf[1]["vma_loaded"], true);
    assert!(text.contains("| Percentile | Kernel | VMA |"), "{text}");
    // The servers were started in the background and stopped, every time.
    let server = "compute-03";
    assert_eq!(
        lab.sim_count(server, &["env", "LOG=/tmp/cairn-ib_send_bw-18515.log"]),
        2
    );
    assert_eq!(lab.sim_count(server, &["env"]), 6);
    assert_eq!(lab.sim_count(server, &["sh", "-c"]), 6);
    let running = &lab.sim_state(server)["tools"]["processes"]["running"];
    assert_eq!(
        running.as_object().map(serde_json::Map::len),
        Some(0),
        "{running}"
    );

    // A second run finds OFED installed and the interface set: no install, no reboot.
    lab.cairn(&["run", "guest.rhai", "-i", "lab.toml"])
        .succeeds();
    for guest in ["compute-02", "compute-03"] {
        assert_eq!(
            lab.sim_count(guest, &["reboot"]),
            1,
            "{guest} was not rebooted again"
        );
        assert_eq!(
            lab.sim_count(guest, &["dnf", "install", "-y", "kernel-modules-extra"]),
            1
        );
        let install = results(&lab.journal(guest), "ofed::install");
        assert_eq!(
            install.first().map(|r| r["changed"].clone()),
            Some(Value::Bool(false))
        );
    }
}

#[test]
fn roce_left_at_mtu_1500_fails_its_expectation_with_the_numbers() {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.copy_lib();
    lab.write("lab.toml", GUEST_LAB);
    let run = lab.cairn(&[
        "run",
        "guest.rhai",
        "-i",
        "lab.toml",
        "--param",
        "roce_mtu=1500",
    ]);
    assert_ne!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(
        output.contains("compute-02 -> compute-03 mlx5_1: RoCE send bandwidth 75."),
        "{output}"
    );
    assert!(
        output.contains("(MTU 1024), expected at least 90.0 Gb/s"),
        "{output}"
    );
    let controller = lab.journal("controller");
    let bw = results(&controller, "perftest::send_bw");
    assert_eq!(bw.len(), 2, "the IB test passed, the RoCE test ran");
    assert!(number(&bw[0], "avg_gbps") > 94.0);
    assert!(number(&bw[1], "avg_gbps") < 80.0);
    assert_eq!(bw[1]["header"]["mtu_bytes"], 1024);
    let end = records(&controller, "host_end");
    assert_eq!(
        end.first().map(|r| r["data"]["status"].clone()),
        Some("failed".into())
    );
}

#[test]
fn a_four_node_fabric_is_checked_pairwise() {
    let lab = Lab::new();
    lab.write("fabric.rhai", FABRIC_RUNBOOK);
    lab.write("lab.toml", FABRIC_LAB);
    lab.cairn(&["run", "fabric.rhai", "-i", "lab.toml"])
        .succeeds();
    let node = lab.journal("node139");
    let fabric = results(&node, "ib::netdiscover");
    let cas = fabric
        .first()
        .map(|f| f["channel_adapters"].clone())
        .unwrap_or_default();
    assert_eq!(cas.as_array().map(Vec::len), Some(4), "{cas}");
    let matrix = results(&lab.journal("controller"), "perftest::matrix");
    let pairs = matrix
        .first()
        .and_then(|m| m.as_array().cloned())
        .unwrap_or_default();
    assert_eq!(pairs.len(), 6);
    for pair in &pairs {
        assert_eq!(pair["ok"], true, "{pair}");
        let avg = number(&pair["result"], "avg_gbps");
        assert!((194.0..=197.5).contains(&avg), "{avg}");
    }
}

const NO_SWEEP: &str = r#"
stage "tests" on controller {
    let r = perftest::send_bw("n-02", "n-01", #{ device: "mlx5_0", size: 65536 });
    log(`${r.avg_gbps}`);
}
"#;

#[test]
fn perftest_on_a_port_still_init_fails_as_perftest_does_and_points_to_wait_active() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.\"n-[01-02]\"]\naddress = \"sim:rhel8?clock=virtual&ofed=5.4-3.0.3.0&subnet_manager=false\"\ngroups = [\"up\"]\n",
    );
    lab.write("nosweep.rhai", NO_SWEEP);
    let run = lab.cairn(&["run", "nosweep.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0);
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(
        output.contains("ib_send_bw on n-01: port 1 of mlx5_0 is Init, not ACTIVE")
            && output.contains("Port number 1 state is Init"),
        "{output}"
    );
    assert!(
        output.contains("ib::wait_active(\"mlx5_0\", 1, 60)"),
        "{output}"
    );
    assert!(!output.contains("Failed to modify QP"), "{output}");
}

const WRONG: &str = r#"
stage "ports up" on up {
    ib::wait_active("mlx5_0", 1, 30);
}

stage "tests" on controller {
    let r = perftest::send_bw(server, "a-01", #{ device: "mlx5_0", size: 65536 });
    log(`${r.avg_gbps}`);
}
"#;

#[test]
fn a_wrong_link_type_or_an_unreachable_peer_fails_as_perftest_does() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.\"a-[01-03]\"]\naddress = \"sim:rhel8?clock=virtual&ofed=5.4-3.0.3.0\"\ngroups = [\"up\"]\n\
         [hosts.b-01]\naddress = \"sim:rhel8?clock=virtual&ofed=5.4-3.0.3.0&ports=eth,eth\"\ngroups = [\"up\"]\n\
         [hosts.c-01]\naddress = \"sim:rhel8?clock=virtual\"\ngroups = [\"bare\"]\n",
    );
    lab.write("wrong.rhai", &format!("param server = \"b-01\";\n{WRONG}"));
    let run = lab.cairn(&["run", "wrong.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0);
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(
        output.contains("ib_send_bw from a-01 to b-01 failed (qp_state): Failed to modify QP"),
        "{output}"
    );
    // No OFED on c-01: its server never starts, the client cannot connect.
    let run = lab.cairn(&[
        "run",
        "wrong.rhai",
        "-i",
        "lab.toml",
        "--param",
        "server=c-01",
    ]);
    assert_ne!(run.code, 0);
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(
        output.contains(
            "ib_send_bw from a-01 to c-01 failed (connection): Couldn't connect to c-01:18515"
        ),
        "{output}"
    );
    // A good pair measures line rate at 64 KiB.
    lab.cairn(&[
        "run",
        "wrong.rhai",
        "-i",
        "lab.toml",
        "--param",
        "server=a-02",
    ])
    .succeeds();
}

/// The guest lab with `program`'s first run on compute-02 dropped mid-command: the run stops
/// with that outcome unknown, and `cairn resume` settles it and finishes.
fn dropped_once_then_resumed(program: &str) -> Lab {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.copy_lib();
    let inventory = GUEST_LAB.replacen(
        "seed=7\"\ngroups = [\"guests\"]\nvars = { roce_ip = \"192.168.5.2\" }",
        &format!("seed=7&drop_once={program}\"\ngroups = [\"guests\"]\nvars = {{ roce_ip = \"192.168.5.2\" }}"),
        1,
    );
    assert_ne!(inventory, GUEST_LAB);
    lab.write("lab.toml", &inventory);
    let run = lab.cairn(&["run", "guest.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0);
    run.stderr_has("its outcome is unknown");
    lab.cairn(&["resume"]).succeeds();
    lab
}

#[test]
fn a_connection_dropped_during_the_install_is_settled_by_a_probe_on_resume() {
    let lab = dropped_once_then_resumed("mlnxofedinstall");
    let installer = "/tmp/MLNX_OFED_LINUX-5.4-3.0.3.0-rhel8.1-x86_64/mlnxofedinstall";
    assert_eq!(
        lab.sim_count("compute-02", &[installer]),
        1,
        "installed once"
    );
    assert_eq!(lab.sim_count("compute-02", &["reboot"]), 1, "rebooted once");
    let journal = lab.journal("compute-02");
    let probed = records(&journal, "outcome")
        .iter()
        .any(|r| r["data"]["how"] == "probe" && r["data"]["reboot_required"] == true);
    assert!(probed, "the install was settled by its probe");
}

#[test]
fn a_node_cabled_to_another_switch_is_missing_from_the_fabric() {
    let lab = Lab::new();
    lab.write("fabric.rhai", FABRIC_RUNBOOK);
    let inventory = format!(
        "{}\n[hosts.node143]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=200&ib_switch=ib-other&ofed=23.10-1.1.9.0\"\ngroups = [\"fabric\"]\n",
        FABRIC_LAB
    );
    lab.write("lab.toml", &inventory);
    let run = lab.cairn(&["run", "fabric.rhai", "-i", "lab.toml"]);
    assert_ne!(run.code, 0);
    let output = format!("{}{}", run.stdout, run.stderr);
    // Whoever looks first fails: node143 sees only itself, or the others do not see node143
    // (and then, failed, they have left the run before node143 looks, so it sees no one
    // missing).
    let alone = output.contains("node143: ibnetdiscover does not list node1")
        && output.contains("(it lists [\"node143\"])");
    let missed = output.contains("ibnetdiscover does not list node143 (it lists [\"node139\"");
    assert!(alone || missed, "{output}");
}

#[test]
fn a_test_whose_outcome_was_lost_stops_its_server_and_runs_again_on_resume() {
    let lab = dropped_once_then_resumed("ib_send_bw");
    // The lost test's server was stopped by the probe, then the test ran again.
    let server_starts = lab.sim_count(
        "compute-03",
        &["env", "LOG=/tmp/cairn-ib_send_bw-18515.log"],
    );
    assert_eq!(server_starts, 3);
    assert_eq!(lab.sim_count("compute-03", &["sh", "-c"]), 8);
    let controller = lab.journal("controller");
    assert_eq!(results(&controller, "perftest::send_bw").len(), 2);
    let running = &lab.sim_state("compute-03")["tools"]["processes"]["running"];
    assert_eq!(
        running.as_object().map(serde_json::Map::len),
        Some(0),
        "{running}"
    );
}

const EVERY_PERFTEST: &str = r#"
stage "ports up" on up {
    ib::wait_active("mlx5_0", 1, 60);
}

stage "tests" on controller {
    perftest::send_bw("n-02", "n-01", #{ device: "mlx5_0" });
    perftest::write_bw("n-02", "n-01", #{ device: "mlx5_0" });
    perftest::read_bw("n-02", "n-01", #{ device: "mlx5_0" });
    perftest::send_lat("n-02", "n-01", #{ device: "mlx5_0" });
    perftest::write_lat("n-02", "n-01", #{ device: "mlx5_0" });
    perftest::read_lat("n-02", "n-01", #{ device: "mlx5_0" });
    perftest::send_bw("n-02", "n-01");
    perftest::write_bw("n-02", "n-01");
    perftest::read_bw("n-02", "n-01");
    perftest::send_lat("n-02", "n-01");
    perftest::write_lat("n-02", "n-01");
    perftest::read_lat("n-02", "n-01");
}
"#;

/// The twelve perftest wrappers take their journal name from the table that registers them;
/// the names must stay the ones journals already hold, or a resume of an old run diverges.
#[test]
fn every_perftest_wrapper_journals_the_name_old_journals_hold() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.\"n-[01-02]\"]\naddress = \"sim:rhel8?clock=virtual&ofed=5.4-3.0.3.0\"\ngroups = [\"up\"]\n",
    );
    lab.write("every.rhai", EVERY_PERFTEST);
    lab.cairn(&["run", "every.rhai", "-i", "lab.toml"])
        .succeeds();
    let names: Vec<String> = records(&lab.journal("controller"), "intent")
        .iter()
        .filter_map(|r| r["data"]["builtin"].as_str().map(str::to_owned))
        .collect();
    let old = [
        "perftest::send_bw",
        "perftest::write_bw",
        "perftest::read_bw",
        "perftest::send_lat",
        "perftest::write_lat",
        "perftest::read_lat",
    ];
    let expected: Vec<&str> = old.iter().chain(old.iter()).copied().collect();
    assert_eq!(names, expected);
}

#[test]
fn a_failed_install_command_gets_no_help_about_runs_allow_fail() {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.copy_lib();
    let inventory = GUEST_LAB.replacen(
        "seed=7\"\ngroups = [\"guests\"]\nvars = { roce_ip = \"192.168.5.2\" }",
        "seed=7&fail_once=mlnxofedinstall\"\ngroups = [\"guests\"]\nvars = { roce_ip = \"192.168.5.2\" }",
        1,
    );
    assert_ne!(inventory, GUEST_LAB);
    lab.write("lab.toml", &inventory);
    let run = lab.assert_fails(
        &["run", "guest.rhai", "-i", "lab.toml"],
        1,
        &["mlnxofedinstall"],
    );
    run.stderr_lacks("allow_fail");
    // Under `run` itself, the option is the help.
    lab.write("false.rhai", "stage \"s\" on all { run([\"false\"]); }\n");
    lab.assert_fails(
        &["run", "false.rhai", "-i", "lab.toml"],
        1,
        &["pass #{ allow_fail: true } to `run`"],
    );
}

/// A RoCE test is given the GID index its port's `show_gids` names, never a guessed one: a port
/// whose interface has no IPv4 address has no RoCE v2 IPv4 GID, and the test is refused before
/// it runs, naming the host and what `show_gids` printed.
#[test]
fn a_roce_test_on_a_port_without_an_ipv4_gid_is_refused_naming_the_gid_table() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.ra]\n\
         address = \"sim:rhel8?ofed=5.4-3.0.3.0&eth_switch=eth-sw01&ib_switch=ib-sw01\"\n\
         [hosts.rb]\n\
         address = \"sim:rhel8?ofed=5.4-3.0.3.0&eth_switch=eth-sw01&ib_switch=ib-sw01\"\n",
    );
    lab.write(
        "roce.rhai",
        "stage \"test\" on controller {\n\
         \x20   perftest::send_bw(\"rb\", \"ra\", #{ device: \"mlx5_1\", size: 65536 });\n\
         }\n",
    );
    let refused = lab.cairn(&["run", "roce.rhai", "-i", "lab.toml"]).fails(1);
    refused
        .stdout_has("FAILED: cannot choose the RoCE GID on `rb`: mlx5_1 port 1 has no RoCE v2 GID")
        .stdout_has("show_gids printed index 0 fe80:");
    // perftest never ran: no test of an unknown GID.
    assert_eq!(lab.sim_count("ra", &["ib_send_bw"]), 0);
}
