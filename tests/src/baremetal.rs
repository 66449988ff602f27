//! The bare-metal recipe end to end on its shipped lab (`cairn run runbooks/baremetal-ib.rhai -i
//! runbooks/labs/baremetal-2node.toml`): two `sim:rhel8-metal` servers whose staged firmware and
//! link types are activated by `mlxfwreset` without a reboot, or by a reboot where the adapter
//! supports no reset level; and a rerun that changes nothing.

use cairn_tests::{Lab, records};

const RECIPE: [&str; 4] = [
    "run",
    "runbooks/baremetal-ib.rhai",
    "-i",
    "runbooks/labs/baremetal-2node.toml",
];
const NODES: [&str; 2] = ["node01", "node02"];
const LAB: &str = "runbooks/labs/baremetal-2node.toml";

/// The builtins `host`'s newest journal records an intent for, with their arguments.
fn intents(lab: &Lab, host: &str, builtin: &str) -> Vec<serde_json::Value> {
    records(&lab.journal(host), "intent")
        .into_iter()
        .filter(|i| i["data"]["builtin"] == builtin)
        .map(|i| i["data"]["args"].clone())
        .collect()
}

/// Both servers end with port 1 InfiniBand and the new firmware running, and the pair measured.
fn assert_set_up(lab: &Lab, run: &cairn_tests::Run) {
    for host in NODES {
        let state = lab.sim_state(host);
        let cx5 = &state["tools"]["mlxconfig"]["devices"]["mt4119_pciconf0"];
        assert_eq!(cx5["LINK_TYPE_P1"]["current"], 1, "{host}: {cx5}");
        assert_eq!(cx5["LINK_TYPE_P2"]["current"], 2, "{host}: {cx5}");
        let flint = lab
            .sim_commands(host)
            .iter()
            .filter(|c| c.first().is_some_and(|p| p == "mlxfwmanager"))
            .count();
        assert!(flint > 0, "{host} ran mlxfwmanager");
    }
    let row = run
        .stdout
        .lines()
        .find(|l| l.contains("| node01 -> node02 |"))
        .unwrap_or_else(|| panic!("no row for the pair:\n{}", run.stdout));
    let gbps = row
        .split('|')
        .map(str::trim)
        .nth(2)
        .and_then(|c| c.parse::<f64>().ok());
    assert!(gbps.is_some_and(|g| g > 90.0), "IB bandwidth: {row}");
}

#[test]
fn the_recipe_activates_firmware_and_link_types_with_mlxfwreset_and_never_reboots() {
    let lab = Lab::shipped();
    let run = lab.cairn(&RECIPE).succeeds();
    assert_set_up(&lab, &run);
    for host in NODES {
        assert_eq!(
            intents(&lab, host, "reboot"),
            Vec::<serde_json::Value>::new(),
            "{host} rebooted"
        );
        assert_eq!(lab.sim_count(host, &["reboot"]), 0, "{host} rebooted");
        let resets = intents(&lab, host, "mlxfwreset::reset");
        assert_eq!(
            resets,
            [serde_json::json!({ "device": "3b:00.0", "level": 3 })],
            "{host}"
        );
        // The level used is in the outcome the journal keeps, too.
        let journal = lab.journal(host);
        let outcome = records(&journal, "outcome")
            .into_iter()
            .find(|o| o["data"]["result"]["level"] == 3 && o["data"]["changed"] == true);
        assert!(outcome.is_some(), "{host}: no reset outcome with its level");
        assert_eq!(
            lab.sim_state(host)["tools"]["mlxfwreset"]["devices"]["mt4119_pciconf0"],
            1,
            "{host}: one firmware reset"
        );
    }
    run.stdout_has("activated by mlxfwreset at level 3, no reboot");
    // The reset activated what `mlxconfig::set` and `mlxfwmanager::update` staged: the run
    // does not end by asking for the reboot it made unnecessary.
    assert!(
        !run.output().contains("still need a reboot"),
        "{}",
        run.output()
    );

    let again = lab.cairn(&RECIPE).succeeds();
    for host in NODES {
        assert_eq!(
            lab.changes(host),
            Vec::<String>::new(),
            "{host} changed on the rerun"
        );
        assert_eq!(
            intents(&lab, host, "mlxfwreset::reset").len(),
            0,
            "{host}: no reset on the rerun"
        );
    }
    again.stdout_has("nothing staged, nothing to activate");
}

#[test]
fn check_mode_predicts_the_reset_at_level_three_and_changes_nothing() {
    let lab = Lab::shipped();
    let run = lab
        .cairn(&["run", "--check", RECIPE[1], "-i", RECIPE[3]])
        .succeeds();
    run.stdout_has("would    mlxfwreset::reset {\"device\":\"3b:00.0\",\"level\":3}");
    run.stdout_has("the staged changes would be activated by mlxfwreset at level 3");
    for host in NODES {
        let cx5 = &lab.sim_state(host)["tools"]["mlxconfig"]["devices"]["mt4119_pciconf0"];
        assert_eq!(cx5["LINK_TYPE_P1"]["next"], 2, "{host}: {cx5}");
        let resets = lab
            .sim_commands(host)
            .iter()
            .filter(|c| {
                c.first().is_some_and(|p| p == "mlxfwreset") && c.iter().any(|a| a == "reset")
            })
            .count();
        assert_eq!(resets, 0, "{host}: check mode reset the adapter");
    }
}

#[test]
fn an_adapter_that_supports_no_reset_level_is_activated_by_one_reboot() {
    let lab = Lab::shipped();
    let inventory = std::fs::read_to_string(lab.path().join(LAB)).unwrap_or_default();
    let edited = inventory.replace("seed=7\"", "seed=7&reset_levels=none\"");
    assert_ne!(edited, inventory, "the lab's address changed");
    lab.write(LAB, &edited);
    let run = lab.cairn(&RECIPE).succeeds();
    assert_set_up(&lab, &run);
    for host in NODES {
        assert_eq!(intents(&lab, host, "reboot").len(), 1, "{host}: one reboot");
        assert_eq!(lab.sim_count(host, &["reboot"]), 1, "{host}: one reboot");
        assert_eq!(
            intents(&lab, host, "mlxfwreset::reset").len(),
            0,
            "{host}: no reset"
        );
    }
    run.stdout_has("supports no reset level without a reboot now");
}

#[test]
fn a_level_the_adapter_does_not_support_fails_with_the_tools_words_before_resetting() {
    let lab = Lab::shipped();
    let inventory = std::fs::read_to_string(lab.path().join(LAB)).unwrap_or_default();
    lab.write(
        LAB,
        &inventory.replace("seed=7\"", "seed=7&reset_levels=4\""),
    );
    lab.write(
        "reset0.rhai",
        "stage \"stage\" on metal {\n    mlxconfig::set(\"3b:00.0\", #{ LINK_TYPE_P1: \"IB\" });\n    mlxfwreset::reset(\"3b:00.0\", 3);\n}\n",
    );
    let run = lab.cairn(&["run", "reset0.rhai", "-i", LAB]);
    assert_ne!(run.code, 0, "{}", run.output());
    let text = run.output();
    assert!(
        text.contains("Reset-level '3' is not supported in the current state of `3b:00.0`")
            && text.contains("supported levels 4"),
        "{text}"
    );
    for host in NODES {
        let resets = lab
            .sim_commands(host)
            .iter()
            .filter(|c| c.iter().any(|a| a == "reset"))
            .count();
        assert_eq!(resets, 0, "{host}: the reset never ran");
    }
}

#[test]
fn level_four_and_unknown_levels_are_refused_and_esxi_has_no_mlxfwreset() {
    let lab = Lab::shipped();
    lab.write(
        "level4.rhai",
        "stage \"stage\" on metal {\n    mlxfwreset::reset(\"3b:00.0\", 4);\n}\n",
    );
    let run = lab.cairn(&["run", "level4.rhai", "-i", LAB]);
    assert_ne!(run.code, 0, "{}", run.output());
    assert!(
        run.output()
            .contains("level 4 is a warm reboot of the host: call `reboot()`"),
        "{}",
        run.output()
    );
    lab.write(
        "level2.rhai",
        "stage \"stage\" on metal {\n    mlxfwreset::reset(\"3b:00.0\", 2);\n}\n",
    );
    let run = lab.cairn(&["run", "level2.rhai", "-i", LAB]);
    assert_ne!(run.code, 0, "{}", run.output());
    assert!(
        run.output().contains("level 2 is not a reset level"),
        "{}",
        run.output()
    );

    // On ESXi the MFT bundle has no mlxfwreset: query says so and the helper reboots instead.
    lab.write(
        "esxi.toml",
        "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual&preset=passthrough\"\ngroups = [\"esxi\"]\n",
    );
    lab.write(
        "runbooks/esxi-activate.rhai",
        "import \"connectx\" as cx;\nstage \"stage\" on esxi {\n    let q = mlxfwreset::query(\"mt4119_pciconf1\");\n    expect(!q.installed, `installed: ${q}`);\n    mlxconfig::set(\"mt4119_pciconf1\", #{ LINK_TYPE_P2: \"IB\" });\n    log(`activated by ${cx::activate(\"mt4119_pciconf1\")}`);\n}\n",
    );
    let run = lab
        .cairn(&["run", "runbooks/esxi-activate.rhai", "-i", "esxi.toml"])
        .succeeds();
    run.stdout_has("no mlxfwreset on this host");
    run.stdout_has("activated by reboot");
    assert_eq!(lab.sim_count("esx01", &["reboot"]), 1);
    let cx5 = &lab.sim_state("esx01")["tools"]["mlxconfig"]["devices"]["mt4119_pciconf1"];
    assert_eq!(cx5["LINK_TYPE_P2"]["current"], 1, "{cx5}");
}

/// The link faults a guest takes are a bare-metal host's too (its IB cable is the same), and a
/// value the fault cannot be is refused before anything runs.
#[test]
fn a_bare_metal_host_takes_the_link_faults_and_refuses_a_wrong_one() {
    let lab = Lab::new();
    let host = |faults: &str| {
        format!(
            "[hosts.m1]\naddress = \"sim:rhel8-metal?clock=virtual&ofed=5.4-3.0.3.0&{faults}\"\n\
             groups = [\"metal\"]\n"
        )
    };
    lab.write("t.rhai", "stage \"up\" on metal {\n    log(\"up\");\n}\n");
    lab.write(
        "lab.toml",
        &host("effective_ber=3E-9&symbol_errors=5&symbol_errors_per_s=1&link_downs=2"),
    );
    lab.cairn(&["run", "t.rhai", "-i", "lab.toml"]).succeeds();
    lab.write("lab.toml", &host("effective_ber=often"));
    lab.cairn(&["run", "t.rhai", "-i", "lab.toml"])
        .fails(2)
        .stderr_has("effective_ber");
}
