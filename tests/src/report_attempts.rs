//! The report tells what happened over every attempt of a run, as the journals' outcomes say:
//! recipe 1 rolled under `--max-unavailable esxi=1` with esx02's firmware dropping its staged
//! link type, then resumed with the command the failure's help gives. A change the host did
//! not apply is a row of its own, a resume hides nothing an earlier attempt changed, the recap
//! adds up every attempt's, "Left behind" is the list `--json` prints, and params show values.

use std::collections::BTreeMap;

use cairn_tests::{Lab, Run};
use serde_json::Value;

use crate::report_sections::section;
use crate::rolling_recipe::{INVENTORY, RECIPE, faulted_lab};

/// The `run_finished` event of a `--json` run.
fn finished(run: &Run) -> Value {
    run.stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|event| event["event"] == "run_finished")
        .unwrap_or_else(|| panic!("no run_finished event: {}", run.output()))
}

/// Each host's (ok, changed, failed, rebooted) in a `run_finished` event's recap.
fn recap_counts(event: &Value) -> BTreeMap<String, [u64; 4]> {
    let lines = event["recap"].as_array().cloned().unwrap_or_default();
    lines
        .iter()
        .map(|line| {
            let n = |key: &str| line[key].as_u64().unwrap_or_else(|| panic!("{line}"));
            let host = line["host"].as_str().unwrap_or_default().to_owned();
            (host, [n("ok"), n("changed"), n("failed"), n("rebooted")])
        })
        .collect()
}

/// The report of the lab's run, as HTML.
fn report(lab: &Lab) -> String {
    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    std::fs::read_to_string(lab.path().join("report.html")).unwrap_or_else(|e| panic!("{e}"))
}

/// A cell's text: tags dropped, entities the page escapes read back.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// One row of "What changed": how many hosts it folds, what became of it (`data-took`), its
/// hosts, and the change as `what: before -> after`.
#[derive(Debug)]
struct ChangeRow {
    hosts: usize,
    took: String,
    names: String,
    change: String,
}

fn change_rows(html: &str) -> Vec<ChangeRow> {
    section(html, "changes")
        .split("<tr data-hosts=\"")
        .skip(1)
        .map(|row| {
            let attr = |name: &str| {
                row.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or_default()
                    .to_owned()
            };
            let cells: Vec<String> = row
                .split("<td")
                .skip(1)
                .map(|c| text(&format!("<td{c}")))
                .collect();
            let cell = |i: usize| cells.get(i).cloned().unwrap_or_default();
            ChangeRow {
                hosts: row
                    .split('"')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0),
                took: attr("data-took"),
                names: cell(0),
                change: format!("{}: {} -> {}", cell(1), cell(2), cell(3)),
            }
        })
        .collect()
}

/// How many host-changes each change folds, summed over its rows.
fn change_counts(rows: &[ChangeRow]) -> BTreeMap<(String, String), usize> {
    let mut counts = BTreeMap::new();
    for row in rows {
        *counts
            .entry((row.change.clone(), row.took.clone()))
            .or_default() += row.hosts;
    }
    counts
}

/// Each host's (ok, changed, failed, rebooted) in the report's recap: a folded row's hosts are
/// the members inside its `<details>`.
fn report_recap(html: &str) -> BTreeMap<String, [u64; 4]> {
    let mut found = BTreeMap::new();
    for row in section(html, "recap").split("<tr class=\"").skip(1) {
        let Some(host) = row
            .split("data-host=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
        else {
            continue;
        };
        let (names, rest): (Vec<String>, &str) = match row.split_once("</details>") {
            Some((members, rest)) => (
                members
                    .split("<tr><td>")
                    .skip(1)
                    .filter_map(|m| m.split("</td>").next().map(str::to_owned))
                    .collect(),
                rest,
            ),
            None => (vec![host.to_owned()], row),
        };
        let numbers: Vec<u64> = rest
            .split("<td")
            .skip(1)
            .filter_map(|c| text(&format!("<td{c}")).trim().parse().ok())
            .collect();
        let counts = [0, 1, 2, 3].map(|i| numbers.get(i).copied().unwrap_or(u64::MAX));
        for name in names {
            found.insert(name, counts);
        }
    }
    found
}

/// The command the failure's help gives to stage the dropped value again, as its words.
fn restage_command(run: &Run) -> Vec<String> {
    let said = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let command = said
        .split("`cairn resume --from-stage ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("the help names no `cairn resume --from-stage`: {said}"));
    ["resume", "--from-stage", command]
        .map(str::to_owned)
        .to_vec()
}

/// The roll under a budget of one with esx02's firmware dropping its staged link type: it
/// fails at esx02 (`--json`); the lab and the run's end.
fn dropped_link_type() -> (Lab, Run) {
    let lab = faulted_lab("esx02");
    let args = [
        "run",
        RECIPE,
        "-i",
        INVENTORY,
        "--json",
        "--max-unavailable",
        "esxi=1",
    ];
    let first = lab.cairn(&args);
    assert_eq!(first.code, 1, "{}", first.output());
    (lab, first)
}

/// The fault fixed: the inventory without it.
fn fix(lab: &Lab) {
    let inventory = lab.path().join(INVENTORY);
    let faulted = std::fs::read_to_string(&inventory).unwrap_or_else(|e| panic!("{e}"));
    lab.write(
        INVENTORY,
        &faulted.replace("&fault_ignore_staged=LINK_TYPE_P1", ""),
    );
}

#[test]
fn a_staged_value_the_firmware_dropped_is_a_row_of_its_own_marked_not_applied() {
    let (lab, _) = dropped_link_type();
    let rows = change_rows(&report(&lab));
    let link_type = |row: &&ChangeRow| row.change.contains("LINK_TYPE_P1");
    let dropped: Vec<&ChangeRow> = rows
        .iter()
        .filter(link_type)
        .filter(|r| r.names == "esx02")
        .collect();
    assert!(
        matches!(dropped.as_slice(), [one] if one.took == "not-applied" && one.hosts == 1),
        "esx02's link type, which its firmware dropped, is a row of its own: {rows:#?}"
    );
    let applied: usize = rows
        .iter()
        .filter(link_type)
        .filter(|r| r.took == "rebooted")
        .map(|r| r.hosts)
        .sum();
    assert_eq!(applied, 1, "only esx01's link type took: {rows:#?}");
}

#[test]
fn left_behind_is_the_list_the_run_printed_and_params_show_values() {
    let (lab, first) = dropped_link_type();
    let html = report(&lab);
    let left: Vec<String> = section(&html, "left-behind")
        .split("<td>")
        .skip(1)
        .map(|cell| text(cell).trim().to_owned())
        .collect();
    let end = finished(&first);
    let printed: Vec<String> = end["left_behind"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().map(str::to_owned))
        .collect();
    assert!(!printed.is_empty(), "{end}");
    assert_eq!(left, printed, "{}", section(&html, "left-behind"));
    // Params show their values, not the expressions that choose them.
    let summary = section(&html, "summary");
    assert!(summary.contains("ofed_source=mlnx_ofed<"), "{summary}");
    assert!(!summary.contains("one_of"), "{summary}");
}

#[test]
fn the_help_after_a_dropped_staged_value_leads_out_of_the_resume_loop() {
    let (lab, first) = dropped_link_type();
    fix(&lab);
    // A plain resume only checks again, and fails again; the help's command stages it again.
    let again = lab.cairn(&["resume"]);
    assert_eq!(again.code, 1, "{}", again.output());
    let restage = restage_command(&first);
    assert_eq!(restage, restage_command(&again));
    let restage: Vec<&str> = restage.iter().map(String::as_str).collect();
    let out = lab.cairn(&restage);
    assert_eq!(
        out.code,
        0,
        "the help's command leads out: {}",
        out.output()
    );
}

#[test]
fn a_resume_from_a_stage_hides_nothing_an_earlier_attempt_changed() {
    let (lab, first) = dropped_link_type();
    let rows = change_rows(&report(&lab));
    fix(&lab);
    let out = lab.cairn(&["resume", "--from-stage", "1", "--json"]);
    assert_eq!(out.code, 0, "{}", out.output());
    // Every change of the first report is in the last with as many hosts or more.
    let after = report(&lab);
    let (old, new) = (change_counts(&rows), change_counts(&change_rows(&after)));
    for (change, hosts) in &old {
        let now = new.get(change).copied().unwrap_or(0);
        assert!(
            now >= *hosts,
            "{change:?}: {hosts} host(s) before the resume, {now} after: {new:#?}"
        );
    }
    // The recap adds up each attempt's.
    let mut expected = recap_counts(&finished(&first));
    for (host, counts) in recap_counts(&finished(&out)) {
        let sum = expected.entry(host).or_default();
        for (total, n) in sum.iter_mut().zip(counts) {
            *total += n;
        }
    }
    expected.remove("controller");
    let mut recap = report_recap(&after);
    recap.remove("controller");
    assert_eq!(recap, expected, "{}", section(&after, "recap"));
    assert!(
        recap["esx01"][1] > 0,
        "esx01's changes of the first attempt count"
    );
}
