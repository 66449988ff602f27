//! Waits between hosts end: two host stages that each test against the other run their tests in
//! turn, and a host that is its own `vhpc_host` fails with an error instead of hanging.

use std::time::Duration;

use cairn_tests::{Lab, Run};

use crate::hangs::within;
use crate::leftovers::guests_set_up;

/// Runs `cairn ARGS`, failing the test if it has not ended within a minute.
fn bounded(lab: &Lab, args: &[&str]) -> Run {
    within(lab.command(args), Duration::from_secs(60), &args.join(" "))
}

const EACH_TESTS_THE_OTHER: &str = r#"
stage "each tests the other" on guests {
    let me = host().name;
    let other = if me == "compute-02" { "compute-03" } else { "compute-02" };
    perftest::send_lat(other, me, #{ device: "mlx5_0" });
}
"#;

#[test]
fn two_host_stages_testing_each_other_run_in_turn_instead_of_hanging() {
    let lab = guests_set_up("each.rhai", EACH_TESTS_THE_OTHER);
    let before: Vec<usize> = ["compute-02", "compute-03"]
        .iter()
        .map(|host| lab.sim_count(host, &["ib_send_lat"]))
        .collect();
    // Many times: which host's test goes first is up to the scheduler.
    for round in 1..=5 {
        let run = bounded(&lab, &["run", "each.rhai", "-i", "lab.toml"]);
        assert_eq!(run.code, 0, "round {round}\n{}\n{}", run.stdout, run.stderr);
        run.stdout_has("0 failed, 0 stopped");
        // Each host's action ran its own test: a server on the other host, a client on itself.
        for (host, before) in ["compute-02", "compute-03"].iter().zip(&before) {
            let clients = lab.sim_count(host, &["ib_send_lat"]);
            assert_eq!(
                clients,
                before + round,
                "{host}: clients after {round} rounds"
            );
        }
    }
}

#[test]
fn a_host_that_is_its_own_vhpc_host_fails_instead_of_hanging() {
    let lab = Lab::new();
    lab.write(
        "self.rhai",
        "stage \"s\" on esxi {\n    log(vhpc::view(\"vm1\"));\n}\n",
    );
    lab.write(
        "self.toml",
        "[hosts.vc]\naddress = \"sim:esxi7?clock=virtual&role=vcenter&vms=vm1\"\n\
         groups = [\"esxi\"]\nvars = { vhpc_host = \"vc\" }\n",
    );
    let run = bounded(&lab, &["run", "self.rhai", "-i", "self.toml"]).fails(1);
    run.stderr_has("its own `vhpc_host`");
    run.stderr_has("help:");
    run.stderr_has("self.rhai:2");
}
