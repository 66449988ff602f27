//! Rolling stages (`serial N`): batches in inventory order, per-batch `--max-fail-percent`,
//! resume continuing the batch that was running.

use cairn_tests::{Lab, records};
use serde_json::Value;

const ROLLING: &str = r#"
param size = 2;

stage "roll" on compute serial size {
    run(["echo", "rolling"]);
    reboot();
}

stage "after" on compute {
    run(["echo", "after"]);
}
"#;

/// `count` hosts, each with its own simulator options (`node02` gets `special`).
fn lab_of(count: usize, special: &str) -> String {
    let mut text = String::new();
    for n in 1..=count {
        let options = if n == 2 && !special.is_empty() {
            format!("clock=virtual&reboot_secs=5&{special}")
        } else {
            "clock=virtual&reboot_secs=5".into()
        };
        text.push_str(&format!(
            "[hosts.node{n:02}]\naddress = \"sim:linux?{options}\"\ngroups = [\"compute\"]\n"
        ));
    }
    text
}

/// The wall-clock span of the stage's block on `host`: its batch record and its last outcome
/// in that stage.
fn block_span(journal: &[Value], stage: &str) -> (u64, u64) {
    let batch = records(journal, "batch")
        .into_iter()
        .rfind(|b| b["data"]["stage"] == stage)
        .and_then(|b| b["data"]["at"].as_u64())
        .unwrap_or(0);
    let seqs: Vec<u64> = records(journal, "intent")
        .iter()
        .filter(|i| i["data"]["stage"] == stage)
        .filter_map(|i| i["data"]["seq"].as_u64())
        .collect();
    let end = records(journal, "outcome")
        .iter()
        .filter(|o| o["data"]["seq"].as_u64().is_some_and(|s| seqs.contains(&s)))
        .filter_map(|o| o["data"]["at"].as_u64())
        .max()
        .unwrap_or(u64::MAX);
    (batch, end)
}

#[test]
fn a_rolling_stage_runs_its_hosts_in_batches_in_inventory_order() {
    let lab = Lab::new();
    lab.write("book.rhai", ROLLING);
    lab.write("lab.toml", &lab_of(5, ""));
    let run = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    run.stdout_has("batch 2/3: 2 hosts: node[03-04]");
    let expected = [
        (1, "node01"),
        (1, "node02"),
        (2, "node03"),
        (2, "node04"),
        (3, "node05"),
    ];
    let mut spans = Vec::new();
    for (batch, host) in expected {
        let journal = lab.journal(host);
        let recorded = records(&journal, "batch");
        assert_eq!(recorded.len(), 1, "{host}: one batch record: {recorded:?}");
        assert_eq!(recorded[0]["data"]["batch"], batch, "{host}");
        assert_eq!(recorded[0]["data"]["of"], 3, "{host}");
        assert_eq!(lab.sim_count(host, &["reboot"]), 1, "{host}");
        spans.push((batch, block_span(&journal, "roll")));
    }
    for (batch, (start, _)) in &spans {
        for (earlier, (_, end)) in &spans {
            if earlier < batch {
                assert!(
                    start >= end,
                    "batch {batch} started at {start} before batch {earlier} ended at {end}"
                );
            }
        }
    }
}

#[test]
fn a_percentage_cuts_the_group_as_ansible_does_and_serial_zero_is_all_at_once() {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        &ROLLING.replace("serial size", "serial \"50%\""),
    );
    lab.write("lab.toml", &lab_of(5, ""));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"])
        .succeeds();
    // 50% of 5 is 2.5, rounded down to 2: three batches.
    let last = records(&lab.journal("node05"), "batch")[0]["data"].clone();
    assert_eq!(
        (last["batch"].clone(), last["of"].clone()),
        (3.into(), 3.into())
    );

    let all = Lab::new();
    all.write("book.rhai", ROLLING);
    all.write("lab.toml", &lab_of(3, ""));
    all.cairn(&["run", "book.rhai", "-i", "lab.toml", "--param", "size=0"])
        .succeeds();
    let batch = records(&all.journal("node03"), "batch")[0]["data"].clone();
    assert_eq!(
        (batch["batch"].clone(), batch["of"].clone()),
        (1.into(), 1.into())
    );
}

#[test]
fn max_fail_percent_applies_per_batch_and_stops_the_next_batch() {
    let lab = Lab::new();
    lab.write("book.rhai", ROLLING);
    lab.write("lab.toml", &lab_of(4, "fail_once=echo"));
    // One of four hosts is 25% of the run, under 40; but it is half of its batch.
    let run = lab.cairn(&[
        "run",
        "book.rhai",
        "-i",
        "lab.toml",
        "--max-fail-percent",
        "40",
    ]);
    assert_ne!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("no further batch starts")
            || run.stderr.contains("no further batch starts"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    for host in ["node03", "node04"] {
        assert_eq!(
            lab.sim_count(host, &["echo", "rolling"]),
            0,
            "{host}: the next batch never started"
        );
    }
}

#[test]
fn a_resume_continues_with_the_batch_that_was_running() {
    let lab = Lab::new();
    lab.write("book.rhai", ROLLING);
    lab.write("lab.toml", &lab_of(3, "fail_once=echo"));
    let first = lab.cairn(&[
        "run",
        "book.rhai",
        "-i",
        "lab.toml",
        "--param",
        "size=1",
        "--max-fail-percent",
        "0",
    ]);
    assert_ne!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    assert_eq!(
        lab.sim_count("node03", &["echo", "rolling"]),
        0,
        "batch 3 waited"
    );
    lab.cairn(&["resume"]).succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "rolling"]),
        1,
        "batch 1 replayed"
    );
    assert_eq!(lab.sim_count("node01", &["reboot"]), 1, "batch 1 replayed");
    assert_eq!(
        lab.sim_count("node02", &["echo", "rolling"]),
        2,
        "batch 2 ran again"
    );
    let (_, node02_end) = block_span(&lab.journal("node02"), "roll");
    let (node03_start, _) = block_span(&lab.journal("node03"), "roll");
    assert!(
        node03_start >= node02_end,
        "batch 3 started at {node03_start}, before batch 2 ended at {node02_end}"
    );
}

#[test]
fn a_bad_serial_is_refused_before_anything_runs() {
    let lab = Lab::new();
    lab.write("lab.toml", &lab_of(2, ""));
    lab.write(
        "book.rhai",
        &ROLLING.replace("serial size", "serial \"150%\""),
    );
    lab.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml"],
        2,
        &["`serial \"150%\"`"],
    );
    assert_eq!(lab.sim_count("node01", &["echo", "rolling"]), 0);

    lab.write("typo.rhai", &ROLLING.replace("serial size", "serail 2"));
    lab.assert_fails(
        &["run", "typo.rhai", "-i", "lab.toml"],
        2,
        &["did you mean `serial`?"],
    );

    lab.write("param.rhai", ROLLING);
    lab.assert_fails(
        &["run", "param.rhai", "-i", "lab.toml", "--param", "size=-2"],
        2,
        &["serial -2"],
    );
    assert_eq!(lab.sim_count("node01", &["echo", "rolling"]), 0);
}
