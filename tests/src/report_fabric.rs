//! `cairn report` of a fabric acceptance run: eight nodes on two leaf switches, one of them
//! (node06) cabled at 1X and another (node03) on older firmware. The page, loaded in headless
//! Chromium, has a heatmap per `fabric::all_pairs` call with one cell per pair the journal
//! recorded, node06's pairs flagged and no other, and the manifest section naming both hosts'
//! differences.

use std::path::Path;

use cairn_tests::{Lab, records};

use crate::report::{chromium, console_messages, headless};

const BOOK: &str = r#"
stage "ports" on fabric {
    ib::wait_active("mlx5_0", 1, 60);
}
stage "hardware" on fabric {
    let m = fabric::manifest_diff("manifest.toml", "compute");
    for d in m.differences { log(d.message); }
}
stage "all pairs" on controller {
    let nodes = hosts("fabric").map(|h| h.name);
    let bw = fabric::all_pairs(nodes, #{ device: "mlx5_0", test: "send_bw" });
    let lat = fabric::all_pairs(nodes, #{ device: "mlx5_0", test: "send_lat" });
    expect(bw.passed && lat.passed, `suspects ${bw.suspects.hosts}`);
}
"#;

const MANIFEST: &str = r#"
[compute]
hcas = 1
firmware = "16.32.1010"
[[compute.port]]
device = "mlx5_0"
link_layer = "InfiniBand"
rate_gbps = 100
rate_text = "4X EDR"
"#;

fn lab() -> Lab {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("manifest.toml", MANIFEST);
    let mut inventory = String::new();
    for i in 1..=8 {
        let leaf = if i <= 4 { "ib-leaf01" } else { "ib-leaf02" };
        let more = match i {
            6 => "&link_width=1X",
            3 => "&guest_fw=16.28.2006",
            _ => "",
        };
        inventory.push_str(&format!(
            "[hosts.node0{i}]\naddress = \"sim:rhel8?clock=virtual&ports=ib&rate=100&ib_switch={leaf}&ib_spine=ib-spine01&ofed=23.10-1.1.9.0{more}\"\ngroups = [\"fabric\"]\n\n"
        ));
    }
    lab.write("lab.toml", &inventory);
    lab
}

/// The `<figure class="heatmap">` elements of a page: (data-test, the figure's text).
fn heatmaps(dom: &str) -> Vec<(String, String)> {
    dom.split("<figure class=\"heatmap\"")
        .skip(1)
        .map(|part| {
            let figure = part.split("</figure>").next().unwrap_or_default();
            let test = figure
                .split("data-test=\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or_default();
            (test.to_owned(), figure.to_owned())
        })
        .collect()
}

/// The cells of a heatmap: (state, server, client).
fn cells(figure: &str) -> Vec<(String, String, String)> {
    figure
        .split("<rect class=\"cell ")
        .skip(1)
        .map(|cell| {
            let attr = |name: &str| {
                cell.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .unwrap_or_default()
                    .to_owned()
            };
            let state = cell.split('"').next().unwrap_or_default().to_owned();
            (state, attr("data-server"), attr("data-client"))
        })
        .collect()
}

#[test]
fn the_report_draws_each_all_pairs_matrix_as_a_heatmap_and_the_manifest_differences() {
    let lab = lab();
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 1, "node06 fails the matrix: {said}");
    // What the controller's journal recorded of the send_bw matrix: its rounds' pairs.
    let journal = lab.journal("controller");
    let intents = records(&journal, "intent");
    let recorded_pairs: usize = records(&journal, "outcome")
        .iter()
        .filter(|outcome| {
            intents.iter().any(|i| {
                i["data"]["seq"] == outcome["data"]["seq"]
                    && i["data"]["builtin"] == "fabric::all_pairs"
                    && i["data"]["args"]["phase"] == "matrix"
                    && i["data"]["args"]["test"] == "send_bw"
            })
        })
        .map(|o| o["data"]["result"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(recorded_pairs, 28, "8 hosts, 7 rounds of 4 pairs");

    lab.cairn(&["report", "-o", "report.html"]).succeeds();
    let page = lab.path().join("report.html");
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    let dom = match chromium() {
        Some(browser) => {
            let (dom, log) = headless(&browser, &page, &["--dump-dom"]);
            assert!(console_messages(&log).is_empty(), "{log}");
            let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-fabric-8node.png");
            let _ = std::fs::remove_file(&shot);
            headless(
                &browser,
                &page,
                &[
                    "--window-size=1280,2400",
                    "--hide-scrollbars",
                    &format!("--screenshot={}", shot.display()),
                ],
            );
            eprintln!("screenshot: {}", shot.display());
            dom
        }
        None => html,
    };
    let maps = heatmaps(&dom);
    let tests: Vec<&str> = maps.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(tests, ["send_bw", "send_lat"], "a heatmap per call");
    let bw = cells(&maps[0].1);
    assert_eq!(bw.len(), recorded_pairs, "a cell per recorded pair");
    let marked: Vec<&(String, String, String)> = bw.iter().filter(|c| c.0 != "ok").collect();
    assert_eq!(marked.len(), 7, "node06's 7 pairs: {marked:?}");
    assert!(
        marked
            .iter()
            .all(|(state, s, c)| state == "bad" && (s == "node06" || c == "node06")),
        "{marked:?}"
    );
    assert!(
        maps[0].1.contains("suspect hosts: <b>node06</b>"),
        "{}",
        maps[0].1
    );
    assert!(maps[0].1.contains("class=\"legend\""));
    assert_eq!(cells(&maps[1].1).len(), 28);

    let manifest = dom
        .split("<section id=\"manifest\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .unwrap_or_default();
    let rows: Vec<&str> = manifest
        .split("<tr class=\"difference\" ")
        .skip(1)
        .collect();
    assert_eq!(rows.len(), 2, "{manifest}");
    assert!(rows.iter().any(
        |r| r.starts_with("data-host=\"node06\" data-field=\"rate\"")
            && r.contains("node06: mlx5_0 rate 25 Gb/s (1X EDR), expected 100 (4X EDR)")
    ));
    assert!(rows.iter().any(
        |r| r.starts_with("data-host=\"node03\" data-field=\"firmware\"")
            && r.contains("16.28.2006")
    ));
    assert!(manifest.contains("6 of 8 host(s) match"), "{manifest}");
}
