use std::path::Path;

use crate::inventory::Inventory;
use crate::{Runbook, build_engine, check_groups, check_runbook};

fn problems(text: &str) -> Vec<String> {
    let runbook = Runbook::from_text(Path::new("book.rhai"), text.to_owned());
    let engine = build_engine(&crate::ImportPath::at(Path::new(".")), &[], u64::MAX);
    let ast = runbook.compile(&engine).expect("compiles");
    check_runbook(&engine, &ast, &runbook)
        .into_iter()
        .map(|p| format!("{} {}", p.message, p.help.unwrap_or_default()))
        .collect()
}

#[test]
fn a_clean_runbook_has_no_problems() {
    let text = "param n = 1;\nfn twice(x) { x * 2 }\nstage \"a\" on all {\n    let s = \" x \".trim();\n    s.make_upper();\n    let v = [];\n    v.push(twice(n));\n    run([\"echo\", s], #{ allow_fail: true, timeout: 5 });\n}\n";
    assert_eq!(problems(text), Vec::<String>::new());
}

#[test]
fn finds_each_kind_of_problem() {
    let found = problems(
        "stage \"a\" on all {\n    lgo(1);\n    run(\"ls -l\");\n    run([\"x\"], #{ allow_fial: true, timeout: \"5\" });\n    let x = [].push(1);\n}\nstage \"a\" on all { stage \"b\" on all {} }\nreboot();\n",
    );
    let all = found.join("\n");
    for expected in [
        "unknown function `lgo`",
        "did you mean `log`?",
        "`run` takes its command as an array of words",
        "`run` has no option `allow_fial`; did you mean `allow_fail`?",
        "`run` option `timeout` takes an integer",
        "`.push(...)` returns nothing",
        "stage `a` is declared twice",
        "stage `b` is inside stage `a`",
        "`reboot` touches the host",
    ] {
        assert!(all.contains(expected), "{expected}:\n{all}");
    }
    assert_eq!(found.len(), 8, "{all}");
}

#[test]
fn groups_are_checked_against_the_inventory() {
    let runbook = Runbook::from_text(
        Path::new("book.rhai"),
        "stage \"a\" on compute {}\nstage \"b\" on comptue {}\nstage \"c\" on spare {}\nstage \"d\" on controller {}\n".into(),
    );
    let engine = build_engine(&crate::ImportPath::at(Path::new(".")), &[], u64::MAX);
    let ast = runbook.compile(&engine).expect("compiles");
    let inventory = Inventory::parse(
        "lab.toml",
        "[groups.spare]\n[hosts.n1]\naddress = \"local\"\ngroups = [\"compute\"]\n",
    )
    .expect("inventory");
    let found = check_groups(&ast, &runbook, &inventory);
    assert_eq!(found.errors.len(), 1);
    assert!(
        found.errors[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("did you mean `compute`?"))
    );
    assert_eq!(found.warnings.len(), 1);
    assert!(found.warnings[0].contains("`spare`"));
}

#[test]
fn literal_integers_below_a_builtins_least_value_are_refused_before_the_run() {
    let found = problems(
        "stage \"a\" on all {\n    wait_reachable(0);\n    wait_reachable(-5);\n    retry(0, 5, || log(\"x\"));\n    retry(3, -1, || log(\"x\"));\n}\n",
    );
    let all = found.join("\n");
    for expected in [
        "`wait_reachable` needs a timeout of at least 1 s, not 0 argument 1 takes 1 or more",
        "`wait_reachable` needs a timeout of at least 1 s, not -5",
        "`retry` needs at least 1 attempt, not 0",
        "`retry` needs a delay of 0 s or more, not -1 argument 2 takes 0 or more",
    ] {
        assert!(all.contains(expected), "{expected}:\n{all}");
    }
    assert_eq!(found.len(), 4, "{all}");
    // The least values themselves, and anything not a literal, pass.
    let fine = "param t = 0;\nstage \"a\" on all {\n    wait_reachable(1);\n    wait_reachable(t);\n    retry(1, 0, || log(\"x\"));\n}\n";
    assert_eq!(problems(fine), Vec::<String>::new());
}

#[test]
fn a_pipelined_stage_may_not_ask_for_the_whole_group() {
    let found = problems(
        "stage \"tune\" on guests after esxi_host {\n    let peers = hosts(\"guests\");\n}\nstage \"test\" on guests {\n    let peers = hosts(\"guests\");\n}\n",
    );
    let all = found.join("\n");
    assert!(
        all.contains("`hosts` in stage `tune`, which is pipelined (`after esxi_host`)"),
        "{all}"
    );
    assert!(all.contains("drop `after esxi_host`"), "{all}");
    // The plain stage after it keeps its barrier, so its `hosts(...)` is fine.
    assert_eq!(found.len(), 1, "{all}");
}
