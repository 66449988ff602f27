//! `--limit` patterns on `run`, `check` and `cairn hosts`; a resume keeps the run's hosts.

use cairn_tests::{Lab, run_book_args};

/// Two ESXi hosts (one also in `staging`) and three Linux guests, all virtual-clocked.
const LAB: &str = r#"
[groups.fabric]
children = ["esxi"]

[hosts."esx[01-02]"]
address = "sim:linux?clock=virtual"
groups = ["esxi"]

[hosts.esx03]
address = "sim:linux?clock=virtual"
groups = ["esxi", "staging"]

[hosts."node[01-03]"]
address = "sim:linux?clock=virtual"
groups = ["compute"]
"#;

const BOOK: &str = "stage \"one\" on all {\n    run([\"echo\", \"hi\"]);\n}\nstage \"two\" on all {\n    run([\"false\"]);\n}\n";

const ALL: [&str; 6] = ["esx01", "esx02", "esx03", "node01", "node02", "node03"];

fn ran_on(lab: &Lab) -> Vec<&'static str> {
    ALL.into_iter()
        .filter(|host| lab.sim_count(host, &["echo", "hi"]) > 0)
        .collect()
}

#[test]
fn limit_runs_only_the_hosts_the_pattern_selects_and_resume_keeps_them() {
    let lab = Lab::with_book(BOOK, LAB);
    let run = lab
        .run_book(&["--limit", "esx0*:node[02-03]:!staging"])
        .fails(1);
    assert_eq!(ran_on(&lab), ["esx01", "esx02", "node02", "node03"]);
    run.stdout_has("0 done, 4 failed");
    // The resume drives the run's four hosts, not the inventory's six.
    lab.write("book.rhai", &BOOK.replace("false", "true"));
    let resume = lab.cairn(&["resume", "--from-stage", "two"]).succeeds();
    resume.stdout_has("4 done, 0 failed");
    assert_eq!(ran_on(&lab), ["esx01", "esx02", "node02", "node03"]);
}

#[test]
fn a_limit_with_a_typo_or_an_empty_match_runs_nothing() {
    let lab = Lab::with_book(BOOK, LAB);
    lab.assert_fails(
        &run_book_args(&["--limit", "esxi:!stagng"]),
        2,
        &[
            "`stagng` matches no host or group",
            "did you mean `staging`?",
        ],
    );
    lab.assert_fails(
        &run_book_args(&["--limit", "compute:&esxi"]),
        2,
        &["selects no host"],
    );
    assert!(ran_on(&lab).is_empty());
    assert!(lab.runs().is_empty(), "no run was created");
    lab.assert_fails(
        &["check", "book.rhai", "-i", "lab.toml", "--limit", "nod01"],
        2,
        &["did you mean `node01`?"],
    );
    let check = lab
        .cairn(&[
            "check",
            "book.rhai",
            "-i",
            "lab.toml",
            "--limit",
            "staging,node01",
        ])
        .succeeds();
    check.stdout_has("2 host(s): esx03, node01");
}

#[test]
fn a_check_run_honours_the_limit() {
    let lab = Lab::with_book(BOOK, LAB);
    let run = lab.run_book(&["--check", "--limit", "node01"]).succeeds();
    run.stdout_has("node01");
    run.stdout_lacks("esx01");
}

#[test]
fn hosts_lists_what_a_pattern_matches_under_its_groups() {
    let lab = Lab::new();
    lab.write("lab.toml", LAB);
    let listed = lab
        .cairn(&["hosts", "-i", "lab.toml", "fabric:!esx02,node03"])
        .succeeds();
    assert_eq!(
        listed.stdout,
        "@all:\n  |--@fabric:\n  |  |--esx01\n  |  |--esx03\n  |--@esxi:\n  |  |--esx01\n  |  |--esx03\n  |--@staging:\n  |  |--esx03\n  |--@compute:\n  |  |--node03\n"
    );
    let every = lab.cairn(&["hosts", "-i", "lab.toml"]);
    assert_eq!(
        every.stdout.matches("|  |--").count(),
        6 + 3 + 1,
        "{}",
        every.stdout
    );
    lab.assert_fails(
        &["hosts", "-i", "lab.toml", "esx1*"],
        2,
        &["`esx1*` matches no host"],
    );
}

/// The shipped tuning recipe on one ESXi host of its lab: vCenter, which its var `vhpc_host`
/// names, joins as a helper (reached for the host's `vhpc::` calls, running no stage of its
/// own), so the run goes through instead of failing after it staged the driver's parameters.
#[test]
fn a_limit_takes_along_the_management_host_a_selected_host_names() {
    let lab = Lab::shipped();
    let run = lab
        .cairn(&[
            "run",
            "runbooks/esxi-hpc-tuning.rhai",
            "-i",
            "runbooks/labs/esxi-4.toml",
            "--limit",
            "esx01",
        ])
        .succeeds();
    run.stdout_has("1 done, 0 failed, 0 stopped");
    let powered = |vm: &str| {
        lab.sim_commands("vcenter")
            .iter()
            .filter(|argv| argv.iter().any(|a| a == "power") && argv.iter().any(|a| a == vm))
            .count()
    };
    assert_eq!(
        powered("hpc-vm01"),
        2,
        "esx01's VM powered off and on again"
    );
    assert_eq!(powered("hpc-vm02"), 0, "esx02 is not in the run");
    assert!(lab.sim_commands("esx02").is_empty(), "esx02 was touched");
    assert!(
        lab.journal("vcenter").is_empty(),
        "a helper has no instance of its own"
    );
}
