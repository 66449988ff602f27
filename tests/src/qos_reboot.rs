//! RoCE lossless settings across a reboot, on a simulated bare-metal host: `qos::set`,
//! `qos::set_ecn` and `qos::set_roce_tos` set them, a staged firmware change reboots the host,
//! which loses them as a real one does (runtime state in the driver); the runbook applies them
//! again and its check after the reboot proves them. Without the second application the check
//! fails the host; a second run changes nothing.

use cairn_tests::{Lab, records};

const LAB: &str = "[hosts.node01]\naddress = \"sim:rhel8-metal?clock=virtual&reboot_secs=300&ofed=5.4-3.0.3.0&reset_levels=none\"\ngroups = [\"metal\"]\n";

/// Port 2 goes InfiniBand at the next boot (`reset_levels=none`: only a reboot activates it);
/// port 1, `mlx5_0`, stays the RoCE port.
const BOOK: &str = r#"param reapply = true;

fn lossless() {
    let roce = net::ifname_for("mlx5_0", 1);
    qos::set(roce, #{ trust: "dscp", pfc: [0,0,0,1,0,0,0,0], dscp2prio: [[46, 3]] });
    qos::set_ecn(roce, #{ priorities: [3], notification_point: true, reaction_point: false });
    qos::set_roce_tos("mlx5_0", #{ dscp: 26, ecn: true });
}

stage "lossless" on metal {
    lossless();
}

stage "firmware" on metal {
    mst::start();
    mlxconfig::set("3b:00.0", #{ LINK_TYPE_P2: "IB" });
    reboot_if_pending();
}

stage "lossless after the reboot" on metal {
    if reapply {
        lossless();
    }
    let roce = net::ifname_for("mlx5_0", 1);
    let q = qos::read(roce);
    expect(q.trust_state == "dscp", `${roce} trusts ${q.trust_state}, not dscp`);
    expect(q.pfc[3].enabled, `PFC is off on ${roce}'s priority 3`);
    expect(q.dscp2prio[3].dscp.contains(46), `DSCP 46 is not in ${roce}'s priority 3`);
    let np = run(["cat", `/sys/class/net/${roce}/ecn/roce_np/enable/3`], #{ read_only: true }).stdout.trim();
    expect(np == "1", `ECN's notification point is ${np} on ${roce}'s priority 3`);
    let rp = run(["cat", `/sys/class/net/${roce}/ecn/roce_rp/enable/3`], #{ read_only: true }).stdout.trim();
    expect(rp == "0", `ECN's reaction point is ${rp} on ${roce}'s priority 3`);
    let tos = run(["cma_roce_tos", "-d", "mlx5_0"], #{ read_only: true }).stdout.trim();
    expect(tos == "106", `RDMA-CM's ToS on mlx5_0 is ${tos}, not 106 (DSCP 26, ECN)`);
}
"#;

fn lab() -> Lab {
    let lab = Lab::new();
    lab.write("lab.toml", LAB);
    lab.write("book.rhai", BOOK);
    lab
}

/// The `qos::` changes of the newest run's journal that changed something.
fn qos_changes(lab: &Lab) -> Vec<String> {
    lab.changes("node01")
        .into_iter()
        .filter(|c| c.starts_with("qos::"))
        .collect()
}

#[test]
fn settings_lost_at_the_reboot_are_applied_again_and_proved_and_a_rerun_changes_nothing() {
    let lab = lab();
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(lab.sim_count("node01", &["reboot"]), 1);
    // Each setting changed before the reboot and again after it, having been lost.
    let changes = qos_changes(&lab);
    for builtin in ["qos::set", "qos::set_ecn", "qos::set_roce_tos"] {
        let count = changes.iter().filter(|c| *c == builtin).count();
        assert_eq!(count, 2, "{builtin} in {changes:?}");
    }
    let tos = lab
        .sim_commands("node01")
        .into_iter()
        .filter(|c| c.first().is_some_and(|p| p == "cma_roce_tos") && c.iter().any(|a| a == "-t"))
        .map(|c| c.join(" "))
        .collect::<Vec<_>>();
    assert_eq!(tos, ["cma_roce_tos -d mlx5_0 -p 1 -t 106"; 2]);

    let again = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert_eq!(
        lab.changes("node01"),
        Vec::<String>::new(),
        "the rerun changed something"
    );
    assert_eq!(
        lab.sim_count("node01", &["reboot"]),
        1,
        "the rerun rebooted"
    );
}

#[test]
fn the_check_after_the_reboot_fails_when_the_settings_are_not_applied_again() {
    let lab = lab();
    let run = lab.cairn(&[
        "run",
        "book.rhai",
        "-i",
        "lab.toml",
        "--param",
        "reapply=false",
    ]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.output().contains("trusts pcp, not dscp"),
        "{}",
        run.output()
    );
    // The host failed at the check, after its one reboot.
    assert_eq!(lab.sim_count("node01", &["reboot"]), 1);
    let rebooted = records(&lab.journal("node01"), "intent")
        .iter()
        .any(|i| i["data"]["builtin"] == "reboot");
    assert!(rebooted, "the host did not reboot in the run");
}

#[test]
fn a_mistyped_setting_is_refused_before_anything_runs() {
    let lab = Lab::new();
    lab.write("lab.toml", LAB);
    lab.write(
        "book.rhai",
        "stage \"lossless\" on metal {\n    qos::set(\"ens1f0\", #{ trsut: \"dscp\", pfc: [0,0,0,1,0,0,0,0] });\n}\n",
    );
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.output().contains("did you mean `trust`"),
        "{}",
        run.output()
    );
    assert_eq!(lab.sim_count("node01", &["mlnx_qos"]), 0);
}
