//! The report at 100 and 1,000 hosts: every host installs a VIB, flips a port to InfiniBand
//! and updates its firmware, with two reboots; one host in fifty is slower and one has older
//! firmware, so folding has some rows to keep apart. Prints the page's size, its rows (recap
//! rows, timeline lanes, change rows: folded) and the time to write it, then Chromium's time to
//! first contentful paint of the page (the paint timing the page reports, median of 3; a copy
//! of the page with a script that logs it, which the real page's policy forbids).

use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_runtime::RunFolders;
use serde_json::{Value, json};
use support::{Act, write_journal};

#[path = "../src/test_journals.rs"]
mod support;
#[path = "shared/timed_write.rs"]
mod timed_write;

const SIZES: [usize; 2] = [100, 1000];

fn main() {
    let browser = browser();
    println!(
        "| hosts | page | recap rows | timeline lanes | change rows | write (median of 3) | first paint in Chromium (median of 3) | target |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for hosts in SIZES {
        let dir = tempfile::tempdir().expect("temporary folder");
        let (store, id) = run_of(dir.path(), hosts);
        let out = dir.path().join("report.html");
        let times = timed_write::three_writes(&store, &id, &out);
        let html = std::fs::read_to_string(&out).expect("the page");
        let section = |id: &str| {
            html.split(&format!("<section id=\"{id}\">"))
                .nth(1)
                .and_then(|rest| rest.split("</section>").next())
                .unwrap_or_default()
                .to_owned()
        };
        let recap = section("recap").matches("<tr class=").count();
        let timeline = section("timeline");
        let lanes = timeline.matches("<span class=\"lane\"").count();
        let folded = timeline.matches("<details class=\"lanes\"").count();
        let changes = section("changes").matches("<tr data-hosts").count();
        let paint = browser.as_deref().map_or_else(
            || "chromium not installed".to_owned(),
            |browser| first_paint(browser, &html, dir.path()),
        );
        println!(
            "| {hosts} | {:.0} kB | {recap} | {} shown ({folded} folded) | {changes} | {:.3} s | {paint} | < 2 s at 1,000 |",
            html.len() as f64 / 1000.0,
            lanes - visible_inside(&timeline),
            times[1],
        );
    }
}

/// Lanes inside a folded lane's `<details>` (not painted until opened).
fn visible_inside(timeline: &str) -> usize {
    timeline
        .split("<details class=\"lanes\"")
        .skip(1)
        .map(|part| {
            let inside = part.split("</details>").next().unwrap_or_default();
            let summary_end = inside.find("</summary>").unwrap_or(0);
            inside[summary_end..]
                .matches("<span class=\"lane\"")
                .count()
        })
        .sum()
}

/// Run `bench` with `hosts` hosts and the controller.
fn run_of(dir: &Path, hosts: usize) -> (RunFolders, String) {
    let store = RunFolders::new(dir);
    let names: Vec<String> = (1..=hosts).map(|i| format!("node{i:04}")).collect();
    let id = support::new_run(&store, &names);
    for (index, name) in names.iter().enumerate() {
        let step = if index % 50 == 49 { 45 } else { 37 };
        write_journal(
            &store,
            &id,
            (name, &names),
            "fabric",
            step,
            &host_actions(index),
        );
    }
    let rows: Vec<Value> = names
        .chunks(2)
        .map(|pair| json!([pair.join(" -> "), "97.8", "1.07"]))
        .collect();
    let controller = [
        Act::query(
            "report::table",
            json!({"title": "ibverbs tests per pair", "columns": ["pair", "IB Gb/s", "IB us"], "rows": rows}),
            Value::Null,
        ),
        Act::query(
            "report::verdict",
            json!({"ok": true, "text": format!("all {} pairs reached 90 Gb/s and 1.5 us", hosts / 2)}),
            Value::Bool(true),
        ),
    ];
    support::write_controller(&store, &id, &names, &controller);
    (store, id)
}

/// What one host does; host 7 runs older firmware before its update.
fn host_actions(index: usize) -> Vec<Act> {
    let from = if index == 7 {
        "16.31.1014"
    } else {
        "16.32.1010"
    };
    vec![
        Act::change(
            "esxcli::vib_install",
            json!({"source": "/vmfs/volumes/nfs/mellanox/Mellanox-nmlx5_4.21.71.101-1OEM.702.0.0.17473468_18203393.zip"}),
            json!({"changed": true, "reboot_required": true,
                "vibs_installed": ["MEL_bootbank_nmlx5-core_4.21.71.101-1OEM.702.0.0.17473468"],
                "vibs_removed": ["VMW_bootbank_nmlx5-core_4.19.70.1-1vmw.703.0.0.18644231"]}),
            true,
        ),
        Act::change(
            "mlxconfig::set",
            json!({"device": "mt4119_pciconf1", "values": {"LINK_TYPE_P1": "IB"}}),
            json!({"device": "mt4119_pciconf1", "reboot_required": true,
                "changed": {"LINK_TYPE_P1": {"from": {"label": "ETH", "value": 2}, "to": {"label": "IB", "value": 1}}}}),
            true,
        ),
        Act::query("reboot", json!({}), json!({"waited_ms": 125_000})),
        Act::change(
            "mlxfwmanager::update",
            json!({"device": "3b:00.0", "options": {"online": true}}),
            json!({"changed": true, "from": from, "to": "16.35.2000", "reboot_required": true}),
            true,
        ),
        Act::query("reboot", json!({}), json!({"waited_ms": 125_000})),
        Act::query(
            "ib::wait_active",
            json!({"device": "mlx5_0", "port": 1}),
            json!({"device": "mlx5_0", "port": 1, "rate_gbps": 100.0, "link_layer": "InfiniBand"}),
        ),
    ]
}

/// Chromium's first contentful paint of `html`, median of 3, as the page's paint timing
/// reports it (a copy of the page, with its policy lifted for a script that logs the entry).
fn first_paint(browser: &Path, html: &str, dir: &Path) -> String {
    let policy_start = html
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .unwrap_or(0);
    let policy_end = html[policy_start..]
        .find('>')
        .map_or(0, |end| policy_start + end + 1);
    // Polled rather than observed: an observer's callback may come after `--dump-dom` ends
    // the page's virtual time.
    let probe = "<script>(function p(){const e=performance.getEntriesByName('first-contentful-paint')[0];if(e){console.log('first-contentful-paint '+e.startTime)}else{setTimeout(p,20)}})();</script>";
    let page = dir.join("probe.html");
    std::fs::write(
        &page,
        format!("{}{probe}{}", &html[..policy_start], &html[policy_end..]),
    )
    .expect("write the probe page");
    // Headless Chromium now and then ends a launch without a paint (about one in six here, on
    // a busy machine): up to nine launches for three paints, and the count said.
    let mut paints: Vec<f64> = Vec::new();
    let mut launches = 0;
    while paints.len() < 3 && launches < 9 {
        launches += 1;
        paints.extend(paint_once(browser, &page, dir));
    }
    if paints.is_empty() {
        return format!("not reported in {launches} launches");
    }
    paints.sort_by(f64::total_cmp);
    format!(
        "{:.0} ms ({} of {launches} launches painted)",
        paints[paints.len() / 2],
        paints.len()
    )
}

fn paint_once(browser: &Path, page: &Path, dir: &Path) -> Option<f64> {
    let profile = dir.join("profile");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            // This machine's network is closed: no connections of Chromium's own.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Every compositor stage before a frame is drawn, so virtual time paints.
            "--run-all-compositor-stages-before-draw",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,900",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .ok()?;
    let _ = std::fs::remove_dir_all(&profile);
    let log = String::from_utf8_lossy(&out.stderr);
    log.split("first-contentful-paint ")
        .nth(1)?
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()?
        .parse()
        .ok()
}

/// `chromium` or `chromium-browser` on PATH.
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}
