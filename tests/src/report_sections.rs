//! The report's sections as the site lead reads them, checked in the DOM headless Chromium
//! builds: the verdict first, the change rows against the journals' change records, folded
//! rows that still count every host, attempts that keep an earlier failure, the one host
//! count the command line also prints, and the PDF's first page rendered with pdftoppm.

use std::path::Path;
use std::process::Command;

use cairn_tests::{Lab, records};
use serde_json::Value;

use crate::executor::inventory;
use crate::report::{chromium, console_messages, headless};

/// The ids of the page's sections, in order.
pub(crate) fn section_ids(dom: &str) -> Vec<&str> {
    dom.split("<section id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

/// The body of section `id`.
pub(crate) fn section<'a>(dom: &'a str, id: &str) -> &'a str {
    dom.split(&format!("<section id=\"{id}\">"))
        .nth(1)
        .and_then(|rest| rest.split("</section>").next())
        .unwrap_or_default()
}

/// The numbers of every `data-hosts="N"` after `marker` in `html`.
pub(crate) fn data_hosts(html: &str, marker: &str) -> Vec<usize> {
    html.split(marker)
        .skip(1)
        .filter_map(|rest| {
            rest.split("data-hosts=\"")
                .nth(1)?
                .split('"')
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

/// Change records in `journal`: outcomes of successful actions that changed the host, a reboot
/// left out (the recap and the timeline count those).
pub(crate) fn change_records(journal: &[Value]) -> usize {
    let intents = records(journal, "intent");
    let builtin = |seq: &Value| {
        intents
            .iter()
            .rev()
            .find(|i| &i["data"]["seq"] == seq)
            .and_then(|i| i["data"]["builtin"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    // The latest outcome per sequence number: a retried action counts once.
    let mut latest = std::collections::BTreeMap::new();
    for outcome in records(journal, "outcome") {
        latest.insert(outcome["data"]["seq"].as_u64(), outcome);
    }
    latest
        .values()
        .filter(|o| o["data"]["ok"] == true && o["data"]["changed"] == true)
        .filter(|o| builtin(&o["data"]["seq"]) != "reboot")
        .count()
}

/// The args of every `builtin` call in `journal`.
pub(crate) fn calls<'a>(journal: &'a [Value], builtin: &str) -> Vec<&'a Value> {
    records(journal, "intent")
        .into_iter()
        .filter(|i| i["data"]["builtin"] == builtin)
        .map(|i| &i["data"]["args"])
        .collect()
}

/// `N done, N failed, N stopped` of the command line's last line.
pub(crate) fn counted(output: &str) -> String {
    output
        .lines()
        .rev()
        .find_map(|line| {
            let at = line.find(" done, ")?;
            let start = line[..at].rfind(' ').map_or(0, |s| s + 1);
            let end = line[at..]
                .find(" stopped")
                .map(|e| at + e + " stopped".len())?;
            Some(line[start..end].to_owned())
        })
        .unwrap_or_default()
}

const FAILS_THEN_PASSES: &str = r#"stage "install" on all {
    run(["echo", "install"]);
}
stage "tune" on all {
    run(["false"]);
}
"#;

#[test]
fn a_resumed_run_keeps_the_first_attempts_failures_on_a_time_axis_with_each_attempts_span() {
    let lab = Lab::new();
    lab.write("book.rhai", FAILS_THEN_PASSES);
    lab.write("lab.toml", &inventory("node[01-03]", "clock=virtual"));
    lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    lab.write("book.rhai", &FAILS_THEN_PASSES.replace("false", "true"));
    // The edited stage runs again from its start.
    let resumed = lab.cairn(&["resume", "--from-stage", "tune"]).succeeds();
    let report = lab.cairn(&["report", "-o", "report.html"]).succeeds();
    assert!(
        report.stdout.contains(&counted(&resumed.stdout)),
        "one count: {}\n{}",
        report.stdout,
        resumed.stdout
    );
    let page = lab.path().join("report.html");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    let failed_first: Vec<String> = records(&lab.journal("node01"), "outcome")
        .iter()
        .filter(|o| o["data"]["ok"] == false)
        .filter_map(|o| o["data"]["error"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        failed_first.len(),
        1,
        "the journal keeps the first attempt's failure"
    );

    let dom = match chromium() {
        Some(browser) => {
            let (dom, log) = headless(&browser, &page, &["--dump-dom"]);
            assert!(console_messages(&log).is_empty(), "{log}");
            dom
        }
        None => html,
    };
    assert_eq!(section_ids(&dom).first(), Some(&"verdict"), "{dom}");
    assert!(section(&dom, "verdict").contains("data-verdict=\"pass\""));
    let attempts = section(&dom, "attempts");
    let rows: Vec<&str> = attempts.split("<tr class=").skip(1).collect();
    assert_eq!(rows.len(), 2, "{attempts}");
    let starts = |row: &str, prefix: &str| assert!(row.starts_with(prefix), "{row}");
    starts(rows[0], "\"failed\" data-attempt=\"1\" data-failures=\"3\"");
    assert!(
        rows[0].contains("node[01-03]</b>"),
        "the three hosts' failure is one line: {}",
        rows[0]
    );
    assert!(
        rows[0].contains(&crate::report::escape_like_the_page(&failed_first[0])),
        "{}",
        rows[0]
    );
    starts(rows[1], "\"ok\" data-attempt=\"2\" data-failures=\"0\"");
    let timeline = section(&dom, "timeline");
    assert_eq!(
        timeline.matches("class=\"span attempt ").count(),
        2,
        "{timeline}"
    );
    assert!(
        timeline.matches("class=\"tick\"").count() >= 2,
        "{timeline}"
    );
    assert!(timeline.contains("UTC"), "{timeline}");
}

#[test]
fn the_pdf_opens_on_the_verdict_and_its_first_page_renders() {
    let lab = Lab::shipped();
    lab.cairn(&crate::recipes::VMA).succeeds();
    let missing = lab.cairn_with(
        &["report", "--pdf", "-o", "report.pdf"],
        &[("CAIRN_CHROMIUM", "/nonexistent/chromium")],
    );
    assert_ne!(missing.code, 0, "{}", missing.stderr);
    missing.stderr_has("did not print");
    assert!(!lab.path().join("report.pdf").exists());
    if chromium().is_none() || !installed("pdftoppm") {
        return;
    }
    lab.cairn(&["report", "--pdf"]).succeeds();
    let path = lab.path().join("report.pdf");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(bytes.starts_with(b"%PDF-"), "a PDF");
    let leftovers: Vec<_> = std::fs::read_dir(lab.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".report.pdf"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary files removed: {leftovers:?}"
    );

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-vma-page1");
    let rendered = Command::new("pdftoppm")
        .args(["-png", "-f", "1", "-l", "1", "-r", "60", "-singlefile"])
        .arg(&path)
        .arg(&shot)
        .output()
        .unwrap_or_else(|e| panic!("pdftoppm: {e}"));
    assert!(rendered.status.success(), "{rendered:?}");
    let png = std::fs::read(shot.with_extension("png")).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{}",
        png.len()
    );
    // Page 1's text: the verdict, first, with the recipe's own sentence.
    let text = Command::new("pdftotext")
        .args(["-f", "1", "-l", "1", "-layout"])
        .arg(&path)
        .arg("-")
        .output()
        .unwrap_or_else(|e| panic!("pdftotext: {e}"));
    let text = String::from_utf8_lossy(&text.stdout);
    let verdict = text.find("Verdict").unwrap_or(usize::MAX);
    assert!(verdict < text.find("Summary").unwrap_or(0), "{text}");
    assert!(text.contains("PASS"), "{text}");
    let controller = lab.journal("controller");
    let published = calls(&controller, "report::verdict");
    assert_eq!(published.len(), 1);
    let sentence = published[0]["text"].as_str().unwrap_or_default();
    let first_words: String = sentence
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&first_words),
        "{first_words}: {text}"
    );
}

/// Whether `program` is on PATH; outside CI a missing one skips, CI must have it.
fn installed(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{program} is not installed (.ci/run installs it)"
        );
        eprintln!("skipped: {program} is not installed");
    }
    found
}
