//! `cairn report`: the whole VMware guide's run (recipe 1 on its lab) as an HTML page, loaded
//! in headless Chromium (Debian's `chromium`, which `.ci/run` installs): no console errors,
//! one plot per perftest measurement with one point per message size, read back from the DOM
//! the browser built, and a screenshot for a person to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_tests::{Lab, records};
use serde_json::Value;

const WHOLE_GUIDE: [&str; 4] = [
    "run",
    "runbooks/vsphere7-ib-roce-passthrough.rhai",
    "-i",
    "runbooks/labs/vsphere7-4node.toml",
];

/// Headless Chromium, or `None` (with a note) outside CI when it is not installed; CI must
/// have it.
pub(crate) fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        let status = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .ok()?;
        status
            .status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&status.stdout).trim()))
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is not installed (.ci/run installs it)"
        );
        eprintln!("skipped: chromium is not installed");
    }
    found
}

/// Chromium's headless run of `page` with `extra` flags: no network at all (every host name
/// resolves to nothing, so a page that loaded anything would log an error), console messages
/// logged to standard error. Returns (stdout, stderr).
pub(crate) fn headless(browser: &Path, page: &Path, extra: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| panic!("chromium: {e}"));
    assert!(out.status.success(), "chromium failed: {out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The page's console messages in Chromium's log (`...:CONSOLE(12)] "message", source: ...`).
pub(crate) fn console_messages(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|line| line.contains(":CONSOLE"))
        .collect()
}

/// Each plot in the DOM: its `data-*` attributes and the `<circle>` elements inside it.
#[derive(Debug, PartialEq)]
struct Plot {
    kind: String,
    client: String,
    device: String,
    declared: usize,
    circles: usize,
}

fn plots(dom: &str) -> Vec<Plot> {
    dom.split("<figure ")
        .skip(1)
        .filter(|part| part.starts_with("class=\"plot\""))
        .map(|part| {
            let figure = part.split("</figure>").next().unwrap_or_default();
            let attr = |name: &str| {
                figure
                    .split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap_or_default()
                    .to_owned()
            };
            Plot {
                kind: attr("data-kind"),
                client: attr("data-client"),
                device: attr("data-device"),
                declared: attr("data-points").parse().unwrap_or(usize::MAX),
                circles: figure.matches("<circle").count(),
            }
        })
        .collect()
}

/// The perftest measurements the controller's journal recorded: (kind, client, device, rows).
fn recorded_measurements(lab: &Lab) -> Vec<(String, String, String, usize)> {
    let journal = lab.journal("controller");
    let intents = records(&journal, "intent");
    records(&journal, "outcome")
        .iter()
        .filter_map(|outcome| {
            let seq = &outcome["data"]["seq"];
            let intent = intents.iter().find(|i| &i["data"]["seq"] == seq)?;
            let builtin = intent["data"]["builtin"].as_str()?;
            builtin.starts_with("perftest::").then_some(())?;
            let result = &outcome["data"]["result"];
            let kind = format!("perftest-{}", result["kind"].as_str()?);
            Some((
                kind,
                result["client"].as_str()?.to_owned(),
                result["header"]["device"].as_str()?.to_owned(),
                result["rows"].as_array().map_or(0, Vec::len),
            ))
        })
        .collect()
}

#[test]
fn the_report_of_the_whole_guide_loads_in_headless_chromium_with_a_plot_per_measurement() {
    let lab = Lab::shipped();
    let run = lab.cairn(&WHOLE_GUIDE).succeeds();
    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let page = lab.path().join("report.html");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    assert!(!html.contains("<script"), "no JavaScript");
    assert!(
        !html.contains("src=\"http"),
        "nothing loaded from the network"
    );

    let expected = recorded_measurements(&lab);
    assert_eq!(
        expected.len(),
        8,
        "2 pairs × 2 devices × bw and lat: {expected:?}"
    );
    let Some(browser) = chromium() else {
        return;
    };
    let (dom, log) = headless(&browser, &page, &["--dump-dom"]);
    assert!(console_messages(&log).is_empty(), "{log}");
    let found = plots(&dom);
    let perftest: Vec<&Plot> = found
        .iter()
        .filter(|p| p.kind.starts_with("perftest"))
        .collect();
    assert_eq!(perftest.len(), expected.len(), "{found:?}");
    for (plot, (kind, client, device, rows)) in perftest.iter().zip(&expected) {
        assert_eq!(
            (&plot.kind, &plot.client, &plot.device),
            (kind, client, device)
        );
        assert!(*rows > 10, "-a measures every size: {rows}");
        assert_eq!(plot.circles, *rows, "{plot:?}: a point per message size");
        assert_eq!(plot.declared, *rows, "{plot:?}");
    }
    sections_as_the_site_lead_reads_them(&lab, &run, &dom);

    // The console check can fail: the same page with an image from the network and a script
    // added logs the blocked load and the blocked script.
    let tampered = lab.write(
        "tampered.html",
        &html.replacen(
            "<body>",
            "<body><img src=\"http://example.invalid/x.png\"><script>document.title='x'</script>",
            1,
        ),
    );
    let (_, log) = headless(&browser, &tampered, &["--dump-dom"]);
    assert_eq!(console_messages(&log).len(), 2, "{log}");

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-vsphere7-4node.png");
    let _ = std::fs::remove_file(&shot);
    headless(
        &browser,
        &page,
        &[
            "--window-size=1280,2600",
            "--hide-scrollbars",
            &format!("--screenshot={}", shot.display()),
        ],
    );
    let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("{}: {e}", shot.display()));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "{}",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn a_failed_threshold_is_shown_once_with_its_runbook_line_and_a_differing_firmware_is_marked() {
    let lab = Lab::shipped();
    // esx03's ConnectX-5 runs older firmware, and nothing newer is offered.
    let path = "runbooks/labs/vsphere7-4node.toml";
    let inventory =
        std::fs::read_to_string(lab.path().join(path)).unwrap_or_else(|e| panic!("{e}"));
    let marker = "[hosts.esx03]\naddress = \"sim:esxi7?clock=virtual&reboot_secs=120";
    assert!(inventory.contains(marker));
    lab.write(
        path,
        &inventory.replace(marker, &format!("{marker}&fw_version=16.31.1014")),
    );
    let mut args = WHOLE_GUIDE.to_vec();
    args.extend(["--param", "roce_mtu=1500"]);
    lab.cairn(&args).fails(1);
    let report = lab.cairn(&["report", "-o", "out/report.html"]);
    assert_eq!(
        report.code,
        2,
        "a missing folder is an error: {}",
        report.output()
    );
    std::fs::create_dir_all(lab.path().join("out")).unwrap_or_else(|e| panic!("{e}"));
    lab.cairn(&["report", "-o", "out/report.html"]).succeeds();
    let html = std::fs::read_to_string(lab.path().join("out/report.html"))
        .unwrap_or_else(|e| panic!("{e}"));

    let end = lab.journal("controller");
    let end: &Value = records(&end, "host_end")[0];
    let line = end["data"]["line"].as_u64().unwrap_or(0);
    let runbook =
        std::fs::read_to_string(lab.path().join(WHOLE_GUIDE[1])).unwrap_or_else(|e| panic!("{e}"));
    let code = runbook
        .lines()
        .nth(usize::try_from(line).unwrap_or(0).saturating_sub(1))
        .unwrap_or_default()
        .trim();
    assert!(
        code.starts_with("expect("),
        "the journal names the expect's line: {code}"
    );
    let failures = html
        .split("<section id=\"failures\">")
        .nth(1)
        .unwrap_or_default();
    let failures = failures.split("</section>").next().unwrap_or_default();
    assert_eq!(
        failures.matches("class=\"failure\"").count(),
        1,
        "{failures}"
    );
    assert!(failures.contains("RoCE send bandwidth"), "{failures}");
    assert!(failures.contains(&format!(":{line}</code>")), "{failures}");
    assert!(
        failures.contains(&escape_like_the_page(code)),
        "the runbook line itself: {failures}"
    );

    let facts = html
        .split("<section id=\"facts\">")
        .nth(1)
        .unwrap_or_default();
    let facts = facts.split("</section>").next().unwrap_or_default();
    let marked: Vec<&str> = facts
        .split("<tr ")
        .filter(|row| row.contains("class=\"differs\""))
        .collect();
    assert_eq!(marked.len(), 1, "only esx03 differs: {facts}");
    assert!(
        marked[0].starts_with("data-host=\"esx03\""),
        "{}",
        marked[0]
    );
    assert!(marked[0].contains("16.31.1014"), "{}", marked[0]);
}

/// The verdict first with the recipe's published sentence and table, one change row per
/// change record (folded across hosts), the recap folded with every host counted once and the
/// controller apart, the effective params, and the command line's count.
fn sections_as_the_site_lead_reads_them(lab: &Lab, run: &cairn_tests::Run, dom: &str) {
    use crate::report_sections::{
        calls, change_records, counted, data_hosts, section, section_ids,
    };
    assert_eq!(
        section_ids(dom).first(),
        Some(&"verdict"),
        "the verdict is first"
    );
    let verdict = section(dom, "verdict");
    assert!(verdict.contains("data-verdict=\"pass\""), "{verdict}");
    let controller = lab.journal("controller");
    let published = calls(&controller, "report::verdict");
    assert_eq!(published.len(), 1, "the recipe publishes its verdict");
    let sentence = published[0]["text"].as_str().unwrap_or_default();
    assert!(
        verdict.contains(&escape_like_the_page(sentence)),
        "{verdict}"
    );
    let tables = calls(&controller, "report::table");
    assert_eq!(tables.len(), 1);
    let rows = tables[0]["rows"].as_array().map_or(0, Vec::len);
    assert_eq!(rows, 2, "two pairs");
    let table = verdict
        .split("<table class=\"published\">")
        .nth(1)
        .unwrap_or_default();
    assert_eq!(
        table.matches("<tr>").count(),
        1 + rows,
        "the header and a row per pair"
    );

    let hosts: Vec<String> = records(&controller, "header")[0]["data"]["hosts"]
        .as_array()
        .map(|hosts| {
            hosts
                .iter()
                .filter_map(|h| h.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(hosts.len(), 9, "4 ESXi hosts, 4 VMs, vCenter");
    let records: usize = hosts
        .iter()
        .chain(std::iter::once(&"controller".to_owned()))
        .map(|host| change_records(&lab.journal(host)))
        .sum();
    let changes = section(dom, "changes");
    let rows = data_hosts(changes, "<tr ");
    assert!(records > 20, "the guide changes much: {records}");
    assert_eq!(rows.iter().sum::<usize>(), records, "{changes}");
    assert!(
        rows.len() < records,
        "identical changes are folded: {changes}"
    );
    assert!(changes.contains("mlxconfig::set"), "{changes}");
    assert!(changes.contains("LINK_TYPE_P1"), "{changes}");

    let recap = section(dom, "recap");
    let (fleet, controller_rows) = recap
        .split_once("<tbody class=\"controller\">")
        .unwrap_or_default();
    let folded = data_hosts(fleet, "<tr class=");
    assert_eq!(folded.iter().sum::<usize>(), 9, "{fleet}");
    assert!(folded.len() < 9, "identical rows fold: {fleet}");
    assert_eq!(
        data_hosts(controller_rows, "<tr class=").as_slice(),
        [1],
        "the controller apart"
    );
    let timeline = section(dom, "timeline");
    // A folded lane is its summary's lane and one per host inside.
    let lanes = timeline.matches("<span class=\"lane\"").count();
    let folded: usize = data_hosts(timeline, "<details class=\"lanes\"").len();
    assert_eq!(
        lanes - folded,
        10,
        "every host's lane, the controller's too: {timeline}"
    );

    let summary = section(dom, "summary");
    assert!(
        summary.contains("roce_mtu=9000"),
        "the effective params: {summary}"
    );
    assert!(summary.contains("rolling=1"), "{summary}");
    let count = counted(&run.stdout);
    assert!(count.starts_with("9 done"), "{}", run.stdout);
    assert!(
        summary.contains(&format!(
            "<dd data-count=\"hosts\">{count}; the controller: done"
        )),
        "{summary}"
    );
}

/// HTML-escapes as the page does (quotes and angle brackets).
pub(crate) fn escape_like_the_page(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[test]
fn a_mistyped_run_id_is_refused_with_a_did_you_mean_and_writes_nothing() {
    let lab = Lab::shipped();
    lab.assert_fails(&["report", "-o", "r.html"], 2, &["no runs in"]);
    lab.cairn(&crate::recipes::VMA).succeeds();
    let id = lab.runs().pop().unwrap_or_default();
    let typo = format!("{}x", &id[..id.len() - 1]);
    lab.assert_fails(
        &["report", &typo, "-o", "r.html"],
        2,
        &[&format!("did you mean `{id}`")],
    );
    assert!(!lab.path().join("r.html").exists());

    // The VMA recipe's run: one chart of kernel against VMA, both series' points drawn.
    lab.cairn(&["report", &id, "-o", "r.html"]).succeeds();
    let html = std::fs::read_to_string(lab.path().join("r.html")).unwrap_or_else(|e| panic!("{e}"));
    let journal = lab.journal("controller");
    let percentiles: Vec<usize> = records(&journal, "outcome")
        .iter()
        .filter_map(|o| o["data"]["result"]["percentiles"].as_array().map(Vec::len))
        .collect();
    assert_eq!(percentiles.len(), 2, "kernel and VMA");
    let found = plots(&html);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, "sockperf");
    assert_eq!(found[0].circles, percentiles.iter().sum::<usize>());
}
