//! A builtin's result is its parser's type end to end: a replayed result is read back into
//! that type, so a journal whose result has a renamed field is refused naming the record
//! instead of the runbook reading a default.

use cairn_tests::Lab;

/// Edits the journaled result of `host`'s action `seq` in the newest run (a journal written by
/// another cairn, or by hand), returning the run's id and the 1-based line of the action's
/// intent (the line a journal-shape error names).
fn edit_result(
    lab: &Lab,
    host: &str,
    seq: u64,
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
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
    edit(
        outcome["data"]["result"]
            .as_object_mut()
            .expect("the result is a map"),
    );
    lines[at] = outcome.to_string();
    std::fs::write(&path, lines.join("\n") + "\n").expect("edit the journal");
    (id, intent + 1)
}

/// Renames a field of a result map.
fn rename(result: &mut serde_json::Map<String, serde_json::Value>, from: &str, to: &str) {
    let value = result.remove(from).expect("the field to rename");
    result.insert(to.into(), value);
}

/// `mlxconfig::query`'s recorded `params` renamed `parameters` (a journal written by another
/// cairn, or edited): the resume refuses it naming the action and the journal's line, and the
/// runbook never sees a device without parameters.
#[test]
fn a_replayed_mlxconfig_query_with_a_renamed_field_is_refused_naming_the_record() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual&preset=passthrough\"\n",
    );
    lab.write(
        "book.rhai",
        "stage \"s\" on all {\n    let q = mlxconfig::query(\"mt4119_pciconf1\");\n    log(`params: ${q.params.len()}`);\n    run([\"false\"]);\n}\n",
    );
    let first = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(first.code, 1, "{}\n{}", first.stdout, first.stderr);
    assert!(first.stdout.contains("params: "), "{}", first.stdout);
    assert!(!first.stdout.contains("params: 0"), "{}", first.stdout);
    let (id, _) = edit_result(&lab, "esx01", 1, |r| rename(r, "params", "parameters"));

    let resumed = lab.cairn(&["resume"]);
    assert_eq!(resumed.code, 1, "{}\n{}", resumed.stdout, resumed.stderr);
    assert!(!resumed.stdout.contains("params: "), "{}", resumed.stdout);
    let journal = format!(".cairn/runs/{id}/esx01.jsonl line 3");
    assert!(
        resumed.stdout.contains(&format!(
            "the result of `mlxconfig::query` (action 1) does not read as mlxconfig's device query: missing field `params` (journal {journal})"
        )),
        "{}",
        resumed.stdout
    );
}

/// `flint::query`'s recorded `psid` renamed `board_id`: serde alone would replay the image with
/// no PSID (an optional field); the resume refuses the record naming the field it has that the
/// image does not.
#[test]
fn a_replayed_flint_image_with_a_renamed_optional_field_is_refused_naming_it() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.esx01]\naddress = \"sim:esxi7?clock=virtual&preset=passthrough\"\n",
    );
    lab.write(
        "book.rhai",
        "stage \"s\" on all {\n    let image = flint::query(\"mt4119_pciconf1\");\n    log(`psid: ${image.psid}`);\n    run([\"false\"]);\n}\n",
    );
    let first = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    assert_eq!(first.code, 1, "{}\n{}", first.stdout, first.stderr);
    assert!(first.stdout.contains("psid: MT_"), "{}", first.stdout);
    let (id, _) = edit_result(&lab, "esx01", 1, |r| rename(r, "psid", "board_id"));

    let resumed = lab.cairn(&["resume"]);
    assert_eq!(resumed.code, 1, "{}\n{}", resumed.stdout, resumed.stderr);
    assert!(!resumed.stdout.contains("psid: "), "{}", resumed.stdout);
    let journal = format!(".cairn/runs/{id}/esx01.jsonl line 3");
    assert!(
        resumed.stdout.contains(&format!(
            "the result of `flint::query` (action 1) does not read as flint's image query: it has a field `board_id` that flint's image query does not have (journal {journal})"
        )),
        "{}",
        resumed.stdout
    );
}
