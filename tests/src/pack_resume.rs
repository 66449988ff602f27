//! Runs are pinned to their pack (issue 27, item 6): run.json records the pack, its version
//! and content id, and the run loads an unchanging copy of its files, so a resume after the
//! installed pack was upgraded runs what the run started with.

use cairn_tests::Lab;

use crate::pack_trust::{cairn, output, write_pack};

#[test]
fn a_resume_after_the_pack_was_upgraded_runs_the_version_the_run_started_with() {
    let lab = Lab::new();
    for version in ["1.0.0", "2.0.0"] {
        let dir = format!("v{version}");
        write_pack(
            &lab,
            &dir,
            "acme/infra",
            version,
            &format!("said by {version}"),
        );
        lab.write(
            &format!("{dir}/hello.rhai"),
            "import \"greet\" as greet;\n\nstage \"hello\" on all {\n    run([\"hostname\"]);\n    log(greet::text());\n}\n",
        );
        let packed = cairn(
            &lab,
            &["recipes", "pack", &dir, "-o", &format!("{dir}.cairnpack")],
        );
        assert_eq!(packed.code, 0, "{}", output(&packed));
    }
    lab.write(
        "lab.toml",
        "[hosts.node01]\naddress = \"sim:linux?clock=virtual&fail_once=hostname\"\n",
    );
    let v1 = cairn(
        &lab,
        &["recipes", "install", "v1.0.0.cairnpack", "--allow-unsigned"],
    );
    assert_eq!(v1.code, 0, "{}", output(&v1));
    let first = cairn(&lab, &["run", "hello", "-i", "lab.toml"]);
    assert_eq!(first.code, 1, "{}", output(&first));
    let runs = lab.runs();
    let meta =
        std::fs::read_to_string(lab.path().join(format!(".cairn/runs/{}/run.json", runs[0])))
            .unwrap_or_else(|e| panic!("{e}"));
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(meta["pack"]["name"], "acme/infra", "{meta}");
    assert_eq!(meta["pack"]["version"], "1.0.0", "{meta}");
    let id = meta["pack"]["content_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        v1.stdout.contains(&id) && id.starts_with("h1:"),
        "{id}: {}",
        v1.stdout
    );

    let v2 = cairn(
        &lab,
        &["recipes", "install", "v2.0.0.cairnpack", "--allow-unsigned"],
    );
    assert_eq!(v2.code, 0, "{}", output(&v2));
    let resumed = cairn(&lab, &["resume"]);
    assert_eq!(resumed.code, 0, "{}", output(&resumed));
    assert!(
        resumed.stdout.contains("said by 1.0.0"),
        "{}",
        output(&resumed)
    );
    assert!(
        !resumed.stdout.contains("said by 2.0.0"),
        "{}",
        output(&resumed)
    );
    // A new run now takes the newest version.
    let fresh = cairn(&lab, &["run", "hello", "-i", "lab.toml"]);
    assert!(fresh.stdout.contains("said by 2.0.0"), "{}", output(&fresh));
}
