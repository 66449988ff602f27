//! A builtin's result is its parser's type end to end: a replayed result is read back into
//! that type, so a journal whose result has a renamed field is refused naming the record
//! instead of the runbook reading a default.

use cairn_tests::{Lab, Run};

/// Edits the journaled result of `host`'s action `seq` in the newest run (a journal written by
/// another cairn, or by hand), returning the run's id and the 1-based line of the action's
/// intent (the line a journal-shape error names).
pub(crate) fn edit_result(
    lab: &Lab,
    host: &str,
    seq: u64,
    edit: impl FnOnce(&mut serde_json::Value),
) -> (String, usize) {
    let id = lab.runs().pop().expect("a run");
    let path = lab
        .path()
        .join(".cairn/runs")
        .join(&id)
        .join(format!("{host}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("journal");
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let (at, mut outcome) = lines
        .iter()
        .enumerate()
        .find_map(|(at, line)| {
            let record: serde_json::Value = serde_json::from_str(line).ok()?;
            (record["type"] == "outcome" && record["data"]["seq"] == seq).then_some((at, record))
        })
        .expect("the action's outcome");
    let intent = lines
        .iter()
        .position(|line| {
            serde_json::from_str::<serde_json::Value>(line)
                .is_ok_and(|r| r["type"] == "intent" && r["data"]["seq"] == seq)
        })
        .expect("the action's intent");
    edit(&mut outcome["data"]["result"]);
    lines[at] = outcome.to_string();
    std::fs::write(&path, lines.join("\n") + "\n").expect("edit the journal");
    (id, intent + 1)
}

/// A lab of one host (`inventory`) whose first run of `book` failed, with that run.
fn failed_run(inventory: &str, book: &str) -> (Lab, Run) {
    let lab = Lab::new();
    lab.write("lab.toml", inventory);
    lab.write("book.rhai", book);
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    (lab, run)
}

/// Renames a field of a result map.
fn rename(result: &mut serde_json::Value, from: &str, to: &str) {
    let result = result.as_object_mut().expect("the result is a map");
    let value = result.remove(from).expect("the field to rename");
    result.insert(to.into(), value);
}

/// `mlxconfig::query`'s recorded `params` renamed `parameters` (a journal written by another
/// cairn, or edited): the resume refuses it naming the action and the journal's line, and the
/// runbook never sees a device without parameters.
#[test]
fn a_replayed_mlxconfig_query_with_a_renamed_field_is_refused_naming_the_record() {
    let (lab, first) = failed_run(
        "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual&preset=passthrough\"\n",
        "stage \"s\" on all {\n    let q = mlxconfig::query(\"mt4119_pciconf1\");\n    log(`params: ${q.params.len()}`);\n    run([\"false\"]);\n}\n",
    );
    first.stdout_has("params: ");
    first.stdout_lacks("params: 0");
    let (id, _) = edit_result(&lab, "esx01", 1, |r| rename(r, "params", "parameters"));

    let resumed = lab.cairn(&["resume"]).fails(1);
    resumed.stdout_lacks("params: ");
    let journal = format!(".cairn/runs/{id}/esx01.jsonl line 3");
    resumed.stdout_has(&format!("the result of `mlxconfig::query` (action 1) does not read as mlxconfig's device query: missing field `params` (journal {journal})"));
}

/// `flint::query`'s recorded `psid` renamed `board_id`: serde alone would replay the image with
/// no PSID (an optional field); the resume refuses the record naming the field it has that the
/// image does not.
#[test]
fn a_replayed_flint_image_with_a_renamed_optional_field_is_refused_naming_it() {
    let (lab, first) = failed_run(
        "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual&preset=passthrough\"\n",
        "stage \"s\" on all {\n    let image = flint::query(\"mt4119_pciconf1\");\n    log(`psid: ${image.psid}`);\n    run([\"false\"]);\n}\n",
    );
    first.stdout_has("psid: MT_");
    let (id, _) = edit_result(&lab, "esx01", 1, |r| rename(r, "psid", "board_id"));

    let resumed = lab.cairn(&["resume"]).fails(1);
    resumed.stdout_lacks("psid: ");
    let journal = format!(".cairn/runs/{id}/esx01.jsonl line 3");
    resumed.stdout_has(&format!("the result of `flint::query` (action 1) does not read as flint's image query: it has a field `board_id` that flint's image query does not have (journal {journal})"));
}

/// `ofed::info`'s recorded `version` renamed: the resume refuses the record instead of the
/// runbook reading a guest without OFED.
#[test]
fn a_replayed_ofed_info_with_a_renamed_field_is_refused_naming_the_record() {
    let (lab, first) = failed_run(
        "[hosts.g1]\naddress = \"sim:rhel8?clock=virtual&ofed=5.4-3.0.3.0\"\n",
        "stage \"s\" on all {\n    let ofed = ofed::info();\n    log(`ofed: ${ofed.version}`);\n    run([\"false\"]);\n}\n",
    );
    first.stdout_has("ofed: 5.4-3.0.3.0");
    let (id, line) = edit_result(&lab, "g1", 1, |r| rename(r, "version", "ofed_version"));

    let resumed = lab.cairn(&["resume"]).fails(1);
    resumed.stdout_lacks("ofed: ");
    resumed.stdout_has(&format!("the result of `ofed::info` (action 1) does not read as ofed_info's installed OFED: missing field `version` (journal .cairn/runs/{id}/g1.jsonl line {line})"));
}

/// A fabric matrix whose journaled verdict has `bad` renamed: `cairn report` draws the matrix
/// unjudged and names the record instead of a verdict with no bad pair, and a resume refuses
/// it instead of handing the runbook such a verdict.
#[test]
fn a_fabric_verdict_of_another_shape_is_named_by_the_report_and_refused_by_a_resume() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"ports\" on fabric {\n    ib::wait_active(\"mlx5_0\", 1, 60);\n}\nstage \"all pairs\" on controller {\n    let bw = fabric::all_pairs(hosts(\"fabric\").map(|h| h.name), #{ device: \"mlx5_0\" });\n    log(`bad pairs: ${bw.bad}`);\n}\n",
    );
    let mut inventory = String::new();
    for node in ["node01", "node02"] {
        inventory.push_str(&format!(
            "[hosts.{node}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=200&ofed=23.10-1.1.9.0\"\ngroups = [\"fabric\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    let seq = lab
        .journal("controller")
        .iter()
        .find(|r| {
            r["type"] == "intent"
                && r["data"]["builtin"] == "fabric::all_pairs"
                && r["data"]["args"]["phase"] == "verdict"
        })
        .and_then(|r| r["data"]["seq"].as_u64())
        .expect("the verdict's action");
    let (id, line) = edit_result(&lab, "controller", seq, |r| rename(r, "bad", "bad_pairs"));

    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let html = std::fs::read_to_string(lab.path().join("report.html")).expect("the page");
    assert!(
        html.contains(&format!(
            "1 result of fabric::all_pairs verdicts could not be read: missing field `bad` (controller action {seq}, book.rhai:5)"
        )),
        "{html:.4000}"
    );
    assert!(
        html.contains("the verdict record could not be read (named above)"),
        "{html:.4000}"
    );

    let resumed = lab.cairn(&["resume", &id]).fails(1);
    resumed.stdout_lacks("bad pairs: ");
    resumed.stdout_has(&format!("the result of `fabric::all_pairs` (action {seq}) does not read as fabric::all_pairs' verdict record: missing field `bad` (journal .cairn/runs/{id}/controller.jsonl line {line})"));
}
