//! `cairn check --format json`: one object per problem, for editors and CI annotations.

use cairn_tests::Lab;
use serde_json::Value;

fn records(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn check_format_json_prints_one_located_object_per_problem() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.esx01]\naddress = \"sim:esxi7\"\ngroups = [\"esxi\"]\n",
    );
    lab.write("lib/helper.rhai", "fn tune() {\n    runn([\"true\"]);\n}\n");
    lab.write(
        "book.rhai",
        "import \"helper\" as helper;\nstage \"a\" on esxy {\n    run([\"true\"], #{ alow_fail: true });\n}\n",
    );
    let check = lab.cairn(&["check", "book.rhai", "-i", "lab.toml", "--format", "json"]);
    assert_ne!(check.code, 0, "{check:?}");
    let found = records(&check.stdout);
    assert_eq!(found.len(), 3, "{found:?}");
    let option = found
        .iter()
        .find(|r| {
            r["message"]
                .as_str()
                .is_some_and(|m| m.contains("alow_fail"))
        })
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(option["file"], "book.rhai");
    assert_eq!(
        (&option["line"], &option["column"]),
        (&3.into(), &22.into()),
        "{option}"
    );
    assert_eq!(option["code"], "cairn::runtime::runbook");
    let group = found
        .iter()
        .find(|r| r["message"].as_str().is_some_and(|m| m.contains("esxy")))
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(
        (&group["line"], &group["column"]),
        (&2.into(), &14.into()),
        "{group}"
    );
    assert!(
        group["help"]
            .as_str()
            .is_some_and(|h| h.contains("did you mean `esxi`?")),
        "{group}"
    );
    // A problem in a module is in the module's file, at its own line.
    let module = found
        .iter()
        .find(|r| r["message"].as_str().is_some_and(|m| m.contains("runn")))
        .unwrap_or_else(|| panic!("{found:?}"));
    let file = module["file"].as_str().unwrap_or_default();
    assert!(file.ends_with("lib/helper.rhai"), "{module}");
    assert_eq!(
        (&module["line"], &module["column"]),
        (&2.into(), &5.into()),
        "{module}"
    );
    assert!(
        module["help"]
            .as_str()
            .is_some_and(|h| h.contains("did you mean `run`?")),
        "{module}"
    );
}

#[test]
fn check_format_json_reports_a_syntax_error_and_prints_nothing_for_a_clean_runbook() {
    let lab = Lab::new();
    lab.write("bad.rhai", "let x = 1;\nlet y = @;\n");
    let bad = lab.cairn(&["check", "bad.rhai", "--format", "json"]);
    assert_ne!(bad.code, 0, "{bad:?}");
    let found = records(&bad.stdout);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (&found[0]["line"], &found[0]["column"]),
        (&2.into(), &9.into())
    );
    assert!(
        found[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("syntax error"))
    );
    lab.write(
        "ok.rhai",
        "stage \"a\" on esxi {\n    run([\"true\"]);\n}\n",
    );
    let ok = lab
        .cairn(&["check", "ok.rhai", "--format", "json"])
        .succeeds();
    assert_eq!(ok.stdout, "", "{ok:?}");
    let missing = lab.cairn(&["check", "nope.rhai", "--format", "json"]);
    assert_ne!(missing.code, 0, "{missing:?}");
    assert!(
        records(&missing.stdout)[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot read"))
    );
}
