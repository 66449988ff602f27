//! The ESXi half of VMware's guide (sections 2.2 to 2.3.1) on four
//! simulated ESXi hosts and a simulated vCenter: `runbooks/esxi-ib-roce-ports.rhai` with
//! `runbooks/labs/esxi-4.toml`, as shipped.

use cairn_tests::Lab;
use serde_json::Value;

const HOSTS: [&str; 4] = ["esx01", "esx02", "esx03", "esx04"];

/// A lab holding the shipped runbook, its `lib/` and the shipped inventory.
fn shipped_lab() -> Lab {
    let lab = Lab::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runbooks");
    let read = |path: &str| {
        std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    lab.write("esxi-ib-roce-ports.rhai", &read("esxi-ib-roce-ports.rhai"));
    lab.copy_lib();
    lab.write("esxi-4.toml", &read("labs/esxi-4.toml"));
    lab
}

fn run(lab: &Lab, extra: &[&str]) -> cairn_tests::Run {
    let mut args = vec!["run", "esxi-ib-roce-ports.rhai", "-i", "esxi-4.toml"];
    args.extend_from_slice(extra);
    lab.cairn(&args)
}

fn tool(lab: &Lab, host: &str, name: &str) -> Value {
    lab.sim_state(host)["tools"][name].clone()
}

fn assert_configured(lab: &Lab, host: &str) {
    let mlxconfig = tool(lab, host, "mlxconfig");
    let cx5 = &mlxconfig["devices"]["mt4119_pciconf1"];
    for (key, value) in [
        ("LINK_TYPE_P1", 1),
        ("LINK_TYPE_P2", 2),
        ("SRIOV_EN", 0),
        ("ADVANCED_PCI_SETTINGS", 0),
    ] {
        assert_eq!(cx5[key]["current"], value, "{host} {key}: {mlxconfig}");
        assert_eq!(cx5[key]["next"], value, "{host} {key}");
    }
    let esxcli = tool(lab, host, "esxcli");
    assert_eq!(
        esxcli["module_parameters"]["nmlx5_core"], "",
        "{host}: {esxcli}"
    );
    assert_eq!(esxcli["passthru"]["0000:3b:00.0"], true, "{host}");
    assert_eq!(esxcli["passthru"]["0000:3b:00.1"], true, "{host}");
    assert_eq!(
        esxcli["passthru"]["0000:1a:00.0"], false,
        "{host}: the service NIC stays"
    );
    let vibs: Vec<&str> = esxcli["vibs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str())
        .collect();
    for vib in ["mft", "nmst", "nmlx5-core"] {
        assert!(vibs.contains(&vib), "{host}: {vibs:?}");
    }
}

#[test]
fn the_guide_on_four_hosts_reboots_three_times_then_a_second_run_changes_nothing() {
    let lab = shipped_lab();
    run(&lab, &[]).succeeds();
    for host in HOSTS {
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            3,
            "{host}: the guide's three reboots"
        );
        let boots = lab.sim_state(host)["boots"].as_array().map_or(0, Vec::len);
        assert_eq!(boots, 4, "{host}: first boot and three reboots");
        assert_configured(&lab, host);
        let changed = lab.changes(host);
        assert_eq!(
            changed.iter().filter(|c| *c == "reboot").count(),
            3,
            "{changed:?}"
        );
        // LINK_TYPE_P2=2: port 2 is Ethernet already on the guide's host, so three sets change.
        assert_eq!(
            changed.iter().filter(|c| *c == "mlxconfig::set").count(),
            3,
            "{changed:?}"
        );
        assert_eq!(
            changed
                .iter()
                .filter(|c| *c == "esxcli::vib_install")
                .count(),
            3,
            "{changed:?}"
        );
    }
    let vcenter = tool(&lab, "vcenter", "vhpc_toolkit");
    for vm in ["hpc-vm01", "hpc-vm02", "hpc-vm03", "hpc-vm04"] {
        let vm = &vcenter["vms"][vm];
        assert_eq!(
            vm["devices"],
            serde_json::json!(["0000:3b:00.0", "0000:3b:00.1"]),
            "{vcenter}"
        );
        assert_eq!(vm["latency"], "high");
        assert_eq!(vm["cpu_reservation"], true);
        assert_eq!(vm["memory_reservation"], true);
    }
    let commands = lab.sim_commands("esx01").len();

    run(&lab, &[]).succeeds();
    assert_eq!(lab.runs().len(), 2, "a new run, not a resume");
    for host in HOSTS {
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            3,
            "{host}: no reboot the second time"
        );
        assert_eq!(
            lab.changes(host),
            Vec::<String>::new(),
            "{host}: nothing changes"
        );
        assert_configured(&lab, host);
    }
    // The second run only looked: every command it sent is a query or a dry run (and the
    // guide's `mst restart`, which configures nothing and is never counted as a change).
    let looked = lab.sim_commands("esx01");
    for argv in looked.iter().skip(commands) {
        let text = argv.join(" ");
        let query = text.starts_with("cat ")
            || text.contains(" list")
            || text.contains("--dry-run")
            || text.contains(" query")
            || text.starts_with("mst status")
            || text == "mst restart"
            || text.starts_with("mlxfwmanager -d");
        assert!(query, "the second run changed something: {text}");
    }
}

#[test]
fn check_mode_on_a_fresh_lab_reports_the_changes_and_three_reboots_and_changes_nothing() {
    let lab = shipped_lab();
    let check = run(&lab, &["--check"]).succeeds();
    check.stdout_has("check (nothing was changed):");
    for host in HOSTS {
        let line = check
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(host) && l.contains("change(s)"))
            .unwrap_or_else(|| panic!("no summary for {host}:\n{}", check.stdout));
        // 16, powering the running VM off, entering maintenance mode for the driver and
        // leaving it: check mode changes nothing on the host but keeps what it predicted, so
        // powering the VM off again to attach its ports changes nothing more, and leaving
        // maintenance mode is a change.
        assert!(
            line.contains("19 change(s); 3 reboot(s) would follow"),
            "{line}"
        );
        assert_eq!(lab.sim_count(host, &["reboot"]), 0, "{host} rebooted");
        let changing = lab.sim_commands(host).into_iter().find(|argv| {
            let text = argv.join(" ");
            (text.starts_with("esxcli software vib install") && !text.contains("--dry-run"))
                || text.contains(" set ")
                || text.starts_with("mst start")
                || text.contains(" -u ")
        });
        assert_eq!(changing, None, "{host} was changed in check mode");
        let esxcli = tool(&lab, host, "esxcli");
        assert_eq!(esxcli["module_parameters"]["nmlx5_core"], "max_vfs=8,8");
        assert_eq!(
            tool(&lab, host, "mlxconfig")["devices"]["mt4119_pciconf1"]["SRIOV_EN"]["next"],
            1
        );
    }
    check.stdout_has("mlxconfig::set {\"device\":\"mt4119_pciconf1\",\"values\":{\"SRIOV_EN\":0}}");
    // What only MFT could read says so instead of printing blanks.
    check.stdout_has("ConnectX-5 at 3b:00.0: firmware unknown until MFT is installed");
    check.stdout_lacks("(PSID )");
    let vcenter = lab.sim_commands("vcenter");
    assert!(
        vcenter
            .iter()
            .all(|argv| argv.get(1).is_none_or(|c| c == "view")),
        "check mode changed vCenter: {vcenter:?}"
    );
    assert!(lab.runs().is_empty(), "check mode records no run");
}

#[test]
fn hostile_arguments_reach_the_host_as_one_literal_argument() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual\"\ngroups = [\"esxi\"]\n",
    );
    let hostile = "nmlx5_core; reboot $(reboot) `id` \"q\" 'q'\nsecond line";
    lab.write(
        "book.rhai",
        "stage \"hostile\" on esxi {\n    esxcli::module_parameters(\"nmlx5_core; reboot $(reboot) `id` \\\"q\\\" 'q'\\nsecond line\");\n}\n",
    );
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_ne!(
        run.code, 0,
        "no such module: the builtin fails\n{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("Unable to find module")
            || run.stderr.contains("Unable to find module"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let sent = lab.sim_commands("esx01");
    let argv = sent
        .iter()
        .find(|argv| argv.first().is_some_and(|p| p == "esxcli"))
        .unwrap_or_else(|| panic!("{sent:?}"));
    assert_eq!(
        argv,
        &[
            "esxcli",
            "system",
            "module",
            "parameters",
            "list",
            "-m",
            hostile
        ],
        "one literal argument"
    );
    assert_eq!(lab.sim_count("esx01", &["reboot"]), 0);
}

#[test]
fn a_connection_dropped_under_mlxconfig_is_settled_on_resume_with_the_same_three_reboots() {
    let lab = shipped_lab();
    let inventory = std::fs::read_to_string(lab.path().join("esxi-4.toml"))
        .unwrap_or_default()
        .replace(
            "sim:esxi7?reboot_secs=120&clock=virtual",
            "sim:esxi7?reboot_secs=120&clock=virtual&drop_once=mlxconfig",
        );
    lab.write("esxi-4.toml", &inventory);
    let first = run(&lab, &[]);
    assert_ne!(
        first.code, 0,
        "the dropped connection stops the hosts\n{}",
        first.stdout
    );
    for host in HOSTS {
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            2,
            "{host}: stopped before the third reboot"
        );
    }
    lab.cairn(&["resume"]).succeeds();
    for host in HOSTS {
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            3,
            "{host}: still three reboots in all"
        );
        assert_configured(&lab, host);
    }
}

#[test]
fn a_firmware_update_rides_on_the_drivers_reboot() {
    let lab = shipped_lab();
    let inventory = std::fs::read_to_string(lab.path().join("esxi-4.toml"))
        .unwrap_or_default()
        .replace(
            "sim:esxi7?reboot_secs=120&clock=virtual",
            "sim:esxi7?reboot_secs=120&clock=virtual&fw_available=16.35.2000",
        );
    lab.write("esxi-4.toml", &inventory);
    run(&lab, &[]).succeeds();
    for host in HOSTS {
        assert_eq!(
            lab.sim_count(host, &["reboot"]),
            3,
            "{host}: no fourth reboot"
        );
        let firmware = tool(&lab, host, "mlxfwmanager");
        assert_eq!(
            firmware["running"]["mt4119_pciconf1"], "16.35.2000",
            "{firmware}"
        );
        assert!(
            lab.changes(host)
                .contains(&"mlxfwmanager::update".to_owned())
        );
        assert_configured(&lab, host);
    }
    run(&lab, &[]).succeeds();
    for host in HOSTS {
        assert_eq!(lab.changes(host), Vec::<String>::new(), "{host}");
    }
}

#[test]
fn firmware_that_ignores_a_staged_link_type_fails_the_host_after_one_reboot_not_a_loop() {
    let lab = shipped_lab();
    let inventory =
        std::fs::read_to_string(lab.path().join("esxi-4.toml")).unwrap_or_else(|e| panic!("{e}"));
    let address = "address = \"sim:esxi7?reboot_secs=120&clock=virtual\"";
    let (head, tail) = inventory
        .split_once(address)
        .unwrap_or_else(|| panic!("no {address} in the lab"));
    lab.write(
        "esxi-4.toml",
        &format!(
            "{head}address = \"sim:esxi7?reboot_secs=120&clock=virtual&fault_ignore_staged=LINK_TYPE_P1\"{tail}"
        ),
    );
    let first = run(&lab, &[]);
    assert_ne!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    first.stderr_has("mlxconfig LINK_TYPE_P1 is still ETH(2) after the reboot at");
    first.stderr_has("the firmware did not apply it");
    // The tools' and the driver's reboots, then the link types' one: never a fourth.
    assert_eq!(lab.sim_count("esx01", &["reboot"]), 3);
    for host in &HOSTS[1..] {
        assert_configured(&lab, host);
    }
    // A resume checks again and fails again, without another reboot.
    let again = lab.cairn(&["resume"]);
    assert_ne!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    again.stderr_has("is still ETH(2)");
    assert_eq!(lab.sim_count("esx01", &["reboot"]), 3, "no reboot loop");
}
