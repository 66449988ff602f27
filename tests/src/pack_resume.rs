//! Runs are pinned to their pack (issue 27, item 6): run.json records the pack, its version
//! and content id, and the run loads an unchanging copy of its files, so a resume after the
//! installed pack was upgraded runs what the run started with.

use cairn_tests::Lab;

use crate::pack_trust::{cairn, infra_pack};

#[test]
fn a_resume_after_the_pack_was_upgraded_runs_the_version_the_run_started_with() {
    let lab = Lab::new();
    for version in ["1.0.0", "2.0.0"] {
        let dir = infra_pack(&lab, version, &format!("said by {version}"));
        lab.write(
            &format!("{dir}/hello.rhai"),
            "import \"greet\" as greet;\n\nstage \"hello\" on all {\n    run([\"hostname\"]);\n    log(greet::text());\n}\n",
        );
        cairn(
            &lab,
            &["recipes", "pack", &dir, "-o", &format!("{dir}.cairnpack")],
        )
        .succeeds();
    }
    lab.write(
        "lab.toml",
        "[hosts.node01]\naddress = \"sim:linux?clock=virtual&fail_once=hostname\"\n",
    );
    let v1 = cairn(
        &lab,
        &["recipes", "install", "v1.0.0.cairnpack", "--allow-unsigned"],
    )
    .succeeds();
    cairn(&lab, &["run", "hello", "-i", "lab.toml"]).fails(1);
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

    cairn(
        &lab,
        &["recipes", "install", "v2.0.0.cairnpack", "--allow-unsigned"],
    )
    .succeeds();
    let resumed = cairn(&lab, &["resume"]).succeeds();
    resumed.stdout_has("said by 1.0.0");
    resumed.stdout_lacks("said by 2.0.0");
    // A new run now takes the newest version.
    let fresh = cairn(&lab, &["run", "hello", "-i", "lab.toml"]);
    fresh.stdout_has("said by 2.0.0");
}
