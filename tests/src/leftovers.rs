//! What a run leaves on its hosts: a test server started just before a kill is found and
//! stopped when the run resumes, so the next test on its port does not fail forever.

use cairn_tests::Lab;

use crate::crash::{crashed_at, resume_by_id};

const GUEST_RUNBOOK: &str = include_str!("../../runbooks/guest-ib-roce-validate.rhai");
const GUEST_LAB: &str = include_str!("../../runbooks/labs/guests-2node.toml");

/// Two tests on perftest's default port, the second on the other adapter port, as in the
/// torture trial that found the leak.
const TWO_TESTS: &str = r#"
stage "tests" on controller {
    perftest::send_lat("compute-03", "compute-02", #{ device: "mlx5_0" });
    perftest::send_lat("compute-03", "compute-02", #{ device: "mlx5_1" });
}
"#;

/// The two-guest lab (`lab.toml`) set up by the shipped guest runbook, with `book` beside it as
/// `name`.
pub(crate) fn guests_set_up(name: &str, book: &str) -> Lab {
    let lab = Lab::new();
    lab.write("guest.rhai", GUEST_RUNBOOK);
    lab.write(name, book);
    lab.copy_lib();
    lab.write("lab.toml", GUEST_LAB);
    lab.cairn(&["run", "guest.rhai", "-i", "lab.toml"])
        .succeeds();
    lab
}

fn running(lab: &Lab, host: &str) -> usize {
    lab.sim_state(host)["tools"]["processes"]["running"]
        .as_object()
        .map_or(0, serde_json::Map::len)
}

#[test]
fn a_server_started_right_before_a_kill_is_stopped_on_resume() {
    let template = guests_set_up("tests.rhai", TWO_TESTS);
    // The trials' runs need an id of their own (they are per second).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let whole = template.copy();
    whole
        .cairn(&["run", "tests.rhai", "-i", "lab.toml"])
        .succeeds();
    let total: usize = [
        "controller",
        "compute-02",
        "compute-03",
        "esx02",
        "esx03",
        "vcenter",
    ]
    .iter()
    .map(|h| whole.journal(h).len())
    .sum();
    let mut hit = 0;
    // A kill before the write that records the server's pid is the one that leaked it.
    for k in 1..=total {
        for moment in ["before", "after"] {
            let lab = template.copy();
            let fault = format!("{k}:{moment}");
            // Hosts write concurrently, so a `before` point can be passed by.
            if !crashed_at(&lab, &["run", "tests.rhai", "-i", "lab.toml"], &fault) {
                continue;
            }
            hit += 1;
            resume_by_id(&lab, &fault);
            assert_eq!(running(&lab, "compute-03"), 0, "{fault}: servers left");
        }
    }
    assert!(hit > total, "{hit} kills of {total} writes hit the run");
}
