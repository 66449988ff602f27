//! `fabric::all_pairs` through the binary: a clean fabric passes, a slow host fails naming it,
//! and a crash anywhere in the matrix resumes without re-running the pairs already journaled.

use cairn_tests::Lab;

use crate::crash::{crashed_at, resume_by_id};

const BOOK: &str = r#"
stage "ports" on fabric {
    ib::wait_active("mlx5_0", 1, 60);
}
stage "all pairs" on controller {
    let bw = fabric::all_pairs(hosts("fabric").map(|h| h.name), #{ device: "mlx5_0", test: "send_bw" });
    expect(bw.passed, `bad pairs ${bw.bad}; suspect hosts ${bw.suspects.hosts}`);
}
"#;

const NODES: [&str; 4] = ["node01", "node02", "node03", "node04"];

fn lab(slow: Option<&str>) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    let mut inventory = String::new();
    for node in NODES {
        let rate = if Some(node) == slow { 100 } else { 200 };
        inventory.push_str(&format!(
            "[hosts.{node}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate={rate}&ofed=23.10-1.1.9.0\"\ngroups = [\"fabric\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab
}

/// The clients perftest ran, on every node.
fn clients(lab: &Lab) -> usize {
    NODES
        .iter()
        .map(|n| lab.sim_count(n, &["ib_send_bw"]))
        .sum()
}

#[test]
fn a_clean_fabric_passes_and_a_slow_host_fails_by_name() {
    let clean = lab(None);
    let run = clean
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    // Four nodes: three rounds of two pairs, every pair once.
    assert_eq!(clients(&clean), 6);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("3 round(s) of 2 pairs at once; planned"),
        "{said}"
    );
    assert!(said.contains("took"), "{said}");
    let slow = lab(Some("node03"));
    slow.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml"],
        1,
        &[r#"suspect hosts ["node03"]"#],
    );
}

#[test]
fn a_crash_in_the_matrix_resumes_without_rerunning_journaled_pairs() {
    let whole = lab(None);
    whole
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let total: usize = NODES
        .iter()
        .chain(&["controller"])
        .map(|h| whole.journal(h).len())
        .sum();
    // The controller's stage starts once every node ended: its records are the run's last.
    let first = total - whole.journal("controller").len() + 1;
    let mut crashed_in_a_round = 0;
    for k in first..=total {
        let lab = lab(None);
        let fault = format!("{k}:after");
        if !crashed_at(&lab, &["run", "book.rhai", "-i", "lab.toml"], &fault) {
            continue;
        }
        let journal = lab.journal("controller");
        let in_round = journal
            .last()
            .is_some_and(|r| r["type"] == "progress" && r["data"]["data"]["pair"].is_object());
        crashed_in_a_round += usize::from(in_round);
        // The run may have ended before the crash; resuming it by id then replays it all.
        resume_by_id(&lab, &fault);
        // A round's other pair may have ended unjournaled when the process died: at most one
        // test runs twice, never a journaled one.
        let ran = clients(&lab);
        assert!((6..=7).contains(&ran), "crash {fault}: {ran} clients");
    }
    assert!(
        crashed_in_a_round >= 3,
        "crashes after a pair's record: {crashed_in_a_round}"
    );
}
