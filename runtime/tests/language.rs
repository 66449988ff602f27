//! The runbook vocabulary on local hosts: stages, groups, params, run, expect, publish.

mod support;

use cairn_runtime::journal::HostStatus;
use support::Lab;

#[test]
fn stages_run_only_on_their_group_and_actions_are_journaled_once() {
    let lab = Lab::new();
    let report = lab
        .run(
            r#"
            stage "everyone" on all { run(["true"]); }
            stage "only esxi" on esxi { log(run(["echo", host().name]).stdout.trimmed()); }
            "#,
            &[("a", &["esxi"]), ("b", &[])],
            &[],
            false,
        )
        .expect("run starts");
    assert!(report.succeeded(), "{report:?}");
    assert_eq!(lab.journal("a").actions.len(), 2);
    assert_eq!(lab.journal("b").actions.len(), 1);
    assert_eq!(lab.logs("a"), vec!["a".to_owned()]);
}

#[test]
fn params_take_overrides_of_the_defaults_type() {
    let lab = Lab::new();
    let text = r#"
        param mtu = 1500;
        param name = "x";
        stage "s" on all { log(`${mtu + 1} ${name}`); }
    "#;
    let report = lab
        .run(
            text,
            &[("a", &[])],
            &[("mtu", "9000"), ("name", "y")],
            false,
        )
        .expect("starts");
    assert!(report.succeeded(), "{report:?}");
    assert_eq!(lab.logs("a"), vec!["9001 y".to_owned()]);
    // A literal default's type is checked before anything runs, as the command line does.
    let error = lab
        .run(text, &[("a", &[])], &[("mtu", "big")], false)
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("--param mtu=big: `mtu` takes an integer, like its default `1500`"),
        "{error}"
    );
    // A default known only when the runbook runs is checked at its line, in the same words.
    let computed = r#"
        param mtu = 1000 + 500;
        stage "s" on all { log(`${mtu}`); }
    "#;
    let report = lab
        .run(computed, &[("a", &[])], &[("mtu", "big")], false)
        .expect("starts");
    let failure = report.hosts[0].failure.as_ref().expect("fails");
    assert!(
        failure
            .message
            .contains("--param mtu=big: `mtu` takes an integer, like its default `1500`"),
        "{}",
        failure.message
    );
}

#[test]
fn an_unknown_param_is_refused_before_running() {
    let lab = Lab::new();
    let error = lab
        .run(
            r#"param a = 1; stage "s" on all {}"#,
            &[("h", &[])],
            &[("b", "2")],
            false,
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the runbook declares no param `b`"),
        "{error}"
    );
}

#[test]
fn non_zero_exit_fails_the_host_unless_allowed() {
    let lab = Lab::new();
    let report = lab
        .run(
            r#"
            stage "s" on all {
                let r = run(["sh", "-c", "echo oops >&2; exit 3"], #{ allow_fail: true });
                expect(r.code == 3, "allowed");
                run(["false"]);
            }
            "#,
            &[("h", &[])],
            &[],
            false,
        )
        .expect("starts");
    assert_eq!(report.hosts[0].status, HostStatus::Failed);
    let failure = report.hosts[0].failure.as_ref().expect("failure");
    assert!(
        failure.message.contains("`false` exited with 1"),
        "{}",
        failure.message
    );
}

#[test]
fn expect_fails_with_the_message() {
    let lab = Lab::new();
    let report = lab
        .run(
            r#"stage "s" on all { expect(1 > 2, "one is not above two"); }"#,
            &[("h", &[])],
            &[],
            false,
        )
        .expect("starts");
    let failure = report.hosts[0].failure.as_ref().expect("failure");
    assert!(
        failure.message.contains("one is not above two"),
        "{}",
        failure.message
    );
}

#[test]
fn actions_outside_a_stage_are_refused() {
    let lab = Lab::new();
    let report = lab
        .run(r#"run(["true"]);"#, &[("h", &[])], &[], false)
        .expect("starts");
    let failure = report.hosts[0].failure.as_ref().expect("failure");
    assert!(
        failure.message.contains("inside a `stage` block"),
        "{}",
        failure.message
    );
}

#[test]
fn published_values_are_read_after_the_barrier() {
    let lab = Lab::new();
    let report = lab
        .run(
            r#"
            stage "find" on esxi { publish("pci", `${host().name}-3b:00.0`); }
            stage "use" on all {
                let seen = hosts("esxi").map(|h| h.published.pci);
                log(seen.reduce(|sum, x| if sum == () { x } else { sum + "," + x }));
            }
            "#,
            &[("e1", &["esxi"]), ("e2", &["esxi"]), ("g", &[])],
            &[],
            false,
        )
        .expect("starts");
    assert!(report.succeeded(), "{report:?}");
    assert_eq!(lab.logs("g"), vec!["e1-3b:00.0,e2-3b:00.0".to_owned()]);
}

#[test]
fn a_runaway_loop_ends_with_an_error() {
    let lab = Lab::new();
    let report = lab
        .run(
            r#"stage "s" on all { loop { } }"#,
            &[("h", &[])],
            &[],
            false,
        )
        .expect("starts");
    let failure = report.hosts[0].failure.as_ref().expect("failure");
    assert!(
        failure
            .message
            .to_lowercase()
            .contains("too many operations"),
        "{}",
        failure.message
    );
}

#[test]
fn a_failed_host_does_not_hold_the_barrier() {
    let lab = Lab::new();
    let report = lab
        .run(
            r#"
            stage "one" on all { if host().name == "bad" { run(["false"]); } }
            stage "two" on all { run(["true"]); }
            "#,
            &[("bad", &[]), ("good1", &[]), ("good2", &[])],
            &[],
            false,
        )
        .expect("starts");
    let status: Vec<_> = report
        .hosts
        .iter()
        .map(|h| (h.name.as_str(), h.status))
        .collect();
    assert_eq!(
        status,
        vec![
            ("bad", HostStatus::Failed),
            ("good1", HostStatus::Done),
            ("good2", HostStatus::Done)
        ]
    );
}

#[test]
fn secrets_never_reach_the_journal() {
    let lab = Lab::new();
    let text = r#"
        param password = secret("hunter2");
        stage "s" on all { let r = run(["echo", password]); log(r.stdout); }
    "#;
    let report = lab.run(text, &[("h", &[])], &[], false).expect("starts");
    assert!(report.succeeded(), "{report:?}");
    let journal = std::fs::read_to_string(lab.run_dir().join("h.jsonl")).expect("journal");
    assert!(!journal.contains("hunter2"), "{journal}");
    assert!(journal.contains("<redacted>"));
}

#[test]
fn modules_are_imported_from_lib_and_their_actions_are_journaled_with_their_file() {
    let lab = Lab::new();
    lab.write(
        "lib/greet.rhai",
        "fn hello(name) {\n    run([\"echo\", `hello ${name}`]).stdout.trimmed()\n}\n",
    );
    let report = lab
        .run(
            r#"
            import "greet" as greet;
            stage "s" on all { log(greet::hello(host().name)); }
            "#,
            &[("a", &[])],
            &[],
            false,
        )
        .expect("starts");
    assert!(report.succeeded(), "{report:?}");
    assert_eq!(lab.logs("a"), vec!["hello a".to_owned()]);
    let journal = lab.journal("a");
    let intent = &journal.actions.values().next().expect("one action").intent;
    assert!(
        intent.file.ends_with("greet.rhai"),
        "the action names its module: {}",
        intent.file
    );
    assert_eq!(intent.line, 2);
}
