//! What counts as a change: `changed`, `idempotent` and `read_only` on `run`, and where check
//! mode stops predicting.

use cairn_tests::{Lab, records};

use crate::executor::inventory;

fn lab(book: &str) -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", book);
    lab.write("lab.toml", &inventory("node[01-02]", "clock=virtual"));
    lab
}

/// `(changed, reconcile)` of each `run` in node01's journal, in order.
fn runs(lab: &Lab) -> Vec<(bool, String)> {
    let journal = lab.journal("node01");
    let outcomes = records(&journal, "outcome");
    records(&journal, "intent")
        .iter()
        .map(|intent| {
            let changed = outcomes
                .iter()
                .find(|o| o["data"]["seq"] == intent["data"]["seq"])
                .is_some_and(|o| o["data"]["changed"] == true);
            let reconcile = intent["data"]["reconcile"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            (changed, reconcile)
        })
        .collect()
}

#[test]
fn changed_false_is_ok_idempotent_stays_a_change_read_only_is_a_query() {
    let lab = lab(r#"stage "s" on all {
    run(["echo", "a"], #{ changed: false });
    run(["echo", "b"], #{ idempotent: true });
    run(["hostname"], #{ read_only: true });
    run(["echo", "c"]);
}
"#);
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    assert_eq!(
        runs(&lab),
        [
            (false, "ask".to_owned()),
            (true, "redo".to_owned()),
            (false, "redo".to_owned()),
            (true, "ask".to_owned()),
        ]
    );
    let typo = self::lab("stage \"s\" on all { run([\"true\"], #{ readonly: true }); }\n");
    typo.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml"],
        2,
        &["did you mean `read_only`?"],
    );
}

#[test]
fn check_mode_runs_read_only_queries_and_decides_from_them() {
    let lab = lab(r#"stage "s" on all {
    let name = run(["hostname"], #{ read_only: true }).stdout.trimmed();
    if name == "node01" {
        run(["echo", "first"]);
    }
    expect(name.starts_with("node"), "the host has a name");
}
"#);
    let check = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml", "--check"])
        .succeeds();
    assert_eq!(lab.sim_count("node01", &["hostname"]), 1, "the query ran");
    assert_eq!(lab.sim_count("node01", &["echo"]), 0, "the change did not");
    let summary = |host: &str| {
        check
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(host) && l.contains("change"))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        summary("node01").contains("1 change(s)"),
        "{}",
        check.stdout
    );
    assert!(summary("node02").contains("no change"), "{}", check.stdout);
    check.stdout_lacks("prediction stop");
}

#[test]
fn a_failed_expect_ends_the_prediction_with_a_note_instead_of_a_later_error() {
    let lab = lab(r#"stage "s" on all {
    let driver = run(["cat", "/sys/module/mlx5_core/version"]).stdout;
    expect(driver != "", "the mlx5 driver is loaded");
    let major = driver.split(".")[0];
    run(["echo", major]);
}
"#);
    let check = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml", "--check"])
        .succeeds();
    check.stdout_has("check: prediction stops here: the mlx5 driver is loaded");
    assert_eq!(
        check
            .stdout
            .matches("prediction stopped at book.rhai:3: the mlx5 driver is loaded")
            .count(),
        2,
        "{}",
        check.stdout
    );
    check.stdout_has("1 change(s)");
    check.stdout_lacks("echo");
    // A real run fails at the expectation (the file is not there on the simulated host).
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
}
