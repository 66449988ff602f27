//! The guest recipe with DOCA-OFED as its OFED source (`--param ofed_source=doca`): the
//! DOCA-Host repo package and `dnf -y install doca-ofed` instead of `mlnxofedinstall`, to the
//! same end state; a typo in the source is refused before anything runs.

use cairn_tests::{Lab, records};

const GUEST_RUNBOOK: &str = include_str!("../../runbooks/guest-ib-roce-validate.rhai");
const GUEST_LAB: &str = include_str!("../../runbooks/labs/guests-2node.toml");
const DOCA: &str = "/nfs/mellanox/doca-host-2.10.0-093000_25.01_rhel95.x86_64.rpm";

fn logs(lab: &Lab, host: &str) -> String {
    records(&lab.journal(host), "log")
        .iter()
        .filter_map(|r| r["data"]["message"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_guest_recipe_installs_doca_ofed_and_passes_as_with_mlnx_ofed() {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.copy_lib();
    lab.write("lab.toml", GUEST_LAB);
    let args = [
        "run",
        "guest.rhai",
        "-i",
        "lab.toml",
        "--param",
        "ofed_source=doca",
    ];
    lab.cairn(&args).succeeds();
    for guest in ["compute-02", "compute-03"] {
        assert_eq!(lab.sim_count(guest, &["rpm", "-i", DOCA]), 1, "{guest}");
        assert_eq!(lab.sim_count(guest, &["dnf", "clean", "all"]), 1, "{guest}");
        assert_eq!(
            lab.sim_count(guest, &["dnf", "-y", "install", "doca-ofed"]),
            1
        );
        assert_eq!(lab.sim_count(guest, &["tar"]), 0, "no MLNX_OFED tarball");
        assert_eq!(
            lab.sim_count(guest, &["reboot"]),
            1,
            "{guest} rebooted once"
        );
        let text = logs(&lab, guest);
        assert!(text.contains("OFED-internal-25.01-0.6.0"), "{text}");
        assert!(text.contains("ens224f1 mtu 9000"), "{text}");
        assert!(
            text.contains("mlx5_0 port 1 ACTIVE LinkUp 100.0 Gb/sec (4X EDR) InfiniBand"),
            "{text}"
        );
    }
    let controller = lab.journal("controller");
    let bw = records(&controller, "outcome")
        .iter()
        .filter(|r| r["data"]["ok"] == true && r["data"]["result"]["avg_gbps"].is_number())
        .count();
    assert!(bw >= 2, "the IB and RoCE bandwidth tests ran");
    // Again: DOCA-OFED at that release is there, so nothing is installed and no reboot.
    lab.cairn(&args).succeeds();
    for guest in ["compute-02", "compute-03"] {
        assert_eq!(lab.sim_count(guest, &["rpm", "-i", DOCA]), 1, "{guest}");
        assert_eq!(lab.sim_count(guest, &["reboot"]), 1, "{guest}");
    }
    // Back to MLNX_OFED: its installer replaces DOCA-OFED, as the real one removes other OFED
    // packages, and `ofed_info -s` prints the MLNX_OFED form again.
    lab.cairn(&["run", "guest.rhai", "-i", "lab.toml"])
        .succeeds();
    for guest in ["compute-02", "compute-03"] {
        assert_eq!(lab.sim_count(guest, &["reboot"]), 2, "{guest}");
        let text = logs(&lab, guest);
        assert!(text.contains("MLNX_OFED_LINUX-5.4-3.0.3.0"), "{text}");
    }
}

#[test]
fn a_misspelt_ofed_source_is_refused_before_anything_runs() {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.copy_lib();
    lab.write("lab.toml", GUEST_LAB);
    lab.assert_fails(
        &[
            "run",
            "guest.rhai",
            "-i",
            "lab.toml",
            "--param",
            "ofed_source=dcoa",
        ],
        2,
        &["did you mean `doca`?", "`mlnx_ofed`, `doca`"],
    );
    assert!(lab.runs().is_empty(), "no run was created");
    assert_eq!(
        lab.sim_count("compute-02", &[]),
        0,
        "nothing ran on the guest"
    );
}
