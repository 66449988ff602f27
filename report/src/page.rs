//! The page: one self-contained HTML file, its CSS inline, its plots inline SVG; nothing is
//! loaded from anywhere and no script runs (a Content-Security-Policy says so to the browser).

use crate::attempts::AttemptsSection;
use crate::changes::ChangesSection;
use crate::fabric_matrix::FabricMatrixSection;
use crate::facts::FactsSection;
use crate::failures::FailuresSection;
use crate::html::escape;
use crate::ibdiagnet::IbdiagnetSection;
use crate::left_behind::LeftBehindSection;
use crate::manifest_diff::ManifestSection;
use crate::perftest::PerftestSection;
use crate::recap::{RecapSection, SummarySection};
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::sockperf::SockperfSection;
use crate::timeline::TimelineSection;
use crate::verdict::VerdictSection;

/// The sections, in page order; a new kind of finding is one more entry.
pub(crate) static SECTIONS: &[&dyn Section] = &[
    &VerdictSection,
    &LeftBehindSection,
    &SummarySection,
    &ChangesSection,
    &RecapSection,
    &FailuresSection,
    &AttemptsSection,
    &TimelineSection,
    &PerftestSection,
    &IbdiagnetSection,
    &SockperfSection,
    &FabricMatrixSection,
    &ManifestSection,
    &FactsSection,
];

const CSS: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 48px;color:#1d1d1f}
h1{font-size:22px;margin:20px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
nav a{margin-right:12px}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dl.summary dt{color:#666}dl.summary dd{margin:0}
table{border-collapse:collapse}th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
table.recap td:nth-child(n+3){text-align:right;font-variant-numeric:tabular-nums}
tr.failed td:first-child,td.failed{color:#b00020;font-weight:600}td.changed{color:#a15c00}tr.stopped td:first-child{color:#666}
tr.group th{background:#f4f4f6;font-weight:600}td.differs{background:#ffe08a;font-weight:600}
.failure{border-left:4px solid #b00020;background:#fff5f5;padding:6px 12px;margin:10px 0}.failure p{margin:4px 0}
.message{white-space:pre-wrap}pre.code{background:#f6f6f6;padding:6px 8px;margin:4px 0;overflow-x:auto}.lineno{color:#888;margin-right:8px}
.note{color:#666;font-size:12.5px}
.lane{display:flex;align-items:center;height:18px;margin:2px 0}.lane-name{width:130px;flex:none;font-size:12px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.track{display:block;position:relative;flex:1;height:14px;background:#f4f4f6}.span{position:absolute;top:0;height:100%}
.span.wait{background:repeating-linear-gradient(45deg,rgba(0,0,0,.18) 0 3px,transparent 3px 6px)}.span.reboot{background:#33334d;top:2px;height:10px}.span.budget{background:#e0a030;top:4px;height:6px}
.mark.resume{position:absolute;top:-2px;width:2px;height:18px;background:#b00020}
.track.axis{background:none;border-bottom:1px solid #999}.tick{position:absolute;bottom:1px;font-size:10.5px;color:#555;white-space:nowrap;border-left:1px solid #999;padding-left:2px}
.break{position:absolute;top:0;width:2%;height:100%;background:repeating-linear-gradient(90deg,#fff 0 2px,#bbb 2px 4px)}
.span.attempt{box-sizing:border-box;font-size:10.5px;line-height:14px;color:#fff;background:#2e7d32;padding-left:3px;overflow:hidden}.legend i.break{background:repeating-linear-gradient(90deg,#fff 0 2px,#bbb 2px 4px)}.span.attempt.failed{background:#b00020}
details.lanes>summary{display:block;cursor:pointer}details.lanes>summary .lane-name{font-weight:600}details.lanes>summary .lane-name::before{content:'▸ '}details.lanes[open]>summary .lane-name::before{content:'▾ '}details.lanes>.lane{margin-left:12px}
.legend span{margin-right:14px;font-size:12px;white-space:nowrap}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle}
.legend i.wait{background:repeating-linear-gradient(45deg,rgba(0,0,0,.3) 0 3px,#eee 3px 6px)}.legend i.reboot{background:#33334d}.legend i.budget{background:#e0a030}.legend i.resume{background:#b00020;width:2px}
.plots{display:flex;flex-wrap:wrap;gap:12px}figure.plot{margin:0;width:560px;max-width:100%}figure.plot svg{width:100%;height:auto;display:block}
figcaption{font-size:12px;color:#555;overflow-wrap:anywhere}
figure.heatmap{margin:0 0 16px}
p.verdict{font-size:20px;font-weight:700;margin:6px 0}p.verdict.pass{color:#2e7d32}p.verdict.fail{color:#b00020}ul.reasons{margin:4px 0 12px;padding-left:18px;list-style:none}ul.reasons li.failed{color:#b00020}ul.reasons li.ok{color:#2e7d32}
table.published{margin:10px 0}table.published caption{text-align:left;font-weight:600;padding:4px 0}code.given{font-weight:700}ul.failures{margin:0;padding-left:16px}
table.changes td:first-child{white-space:nowrap}td.reboot-pending,td.reboot-not-applied,td.reboot-check-failed,td.reboot-failed{color:#b00020;font-weight:600}td.not-applied{color:#b00020;text-decoration:line-through}table.members td{border:none;padding:0 8px 0 0;font-size:12px}summary{cursor:pointer}
@media print{details.lanes>.lane,table.members{display:none}nav{display:none}}figure.heatmap svg.heatmap{max-width:100%;height:auto;display:block}
";

/// The whole page for `model`.
pub(crate) fn render(model: &RunModel) -> Result<String, ReportError> {
    let mut body = String::new();
    let mut nav = String::new();
    for section in SECTIONS {
        let Some(html) = section.render(model)? else {
            continue;
        };
        nav.push_str(&format!(
            "<a href=\"#{}\">{}</a>",
            section.id(),
            section.title()
        ));
        body.push_str(&format!(
            "<section id=\"{}\"><h2>{}</h2>{html}</section>",
            section.id(),
            section.title()
        ));
    }
    let title = format!("cairn run {}", model.meta.run_id);
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><h1>{}</h1><p class=\"note\">Made by <code>cairn report</code> from the run's journals.</p><nav>{nav}</nav>{body}</body></html>\n",
        escape(&title),
        escape(&title),
    ))
}

#[cfg(test)]
mod tests {
    use cairn_runtime::RunFolders;
    use serde_json::json;

    use super::*;

    use crate::test_journals::{Act, new_run, write_controller, write_journal};

    /// A 100-host run: every host installs a VIB, sets LINK_TYPE_P1 and updates its firmware
    /// (one from older firmware), one host in fifty is slower.
    fn hundred_hosts(dir: &std::path::Path) -> RunModel {
        let store = RunFolders::new(dir);
        let names: Vec<String> = (1..=100).map(|i| format!("node{i:03}")).collect();
        let id = new_run(&store, &names);
        for (index, name) in names.iter().enumerate() {
            let from = if index == 7 {
                "16.31.1014"
            } else {
                "16.32.1010"
            };
            let actions = [
                Act::change(
                    "mlxconfig::set",
                    json!({"device": "mt4119_pciconf1"}),
                    json!({"device": "mt4119_pciconf1", "changed": {"LINK_TYPE_P1":
                        {"from": {"label": "ETH", "value": 2}, "to": {"label": "IB", "value": 1}}}}),
                    true,
                ),
                Act::change(
                    "mlxfwmanager::update",
                    json!({"device": "3b:00.0"}),
                    json!({"changed": true, "from": from, "to": "16.35.2000"}),
                    true,
                ),
                Act::query("reboot", json!({}), json!({"waited_ms": 1000})),
            ];
            let step = if index % 50 == 49 { 45 } else { 37 };
            write_journal(&store, &id, (name, &names), "fabric", step, &actions);
        }
        let verdict = Act::query(
            "report::verdict",
            json!({"ok": true, "text": "all 50 pairs reached 90 Gb/s"}),
            json!(true),
        );
        write_controller(&store, &id, &names, &[verdict]);
        RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"))
    }

    fn section<'a>(html: &'a str, id: &str) -> &'a str {
        html.split(&format!("<section id=\"{id}\">"))
            .nth(1)
            .and_then(|rest| rest.split("</section>").next())
            .unwrap_or_default()
    }

    #[test]
    fn a_100_host_page_opens_on_its_verdict_with_identical_rows_folded() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let html = render(&hundred_hosts(dir.path())).unwrap_or_else(|e| panic!("{e}"));
        let first = html.split("<section id=\"").nth(1).unwrap_or_default();
        assert!(first.starts_with("verdict\""), "{first:.80}");
        let verdict = section(&html, "verdict");
        assert!(verdict.contains("data-verdict=\"pass\""), "{verdict}");
        assert!(verdict.contains("✓ all 100 hosts done"), "{verdict}");
        assert!(
            verdict.contains("all 50 pairs reached 90 Gb/s"),
            "{verdict}"
        );

        // Same status and counts: one recap row for the hundred; the controller apart.
        let recap = section(&html, "recap");
        assert!(
            recap.contains("data-host=\"node[001-100]\" data-hosts=\"100\""),
            "{recap}"
        );
        assert_eq!(recap.matches("<tr class=\"ok\"").count(), 2, "{recap}");

        // Three changes on every host; the one older firmware apart.
        let changes = section(&html, "changes");
        assert!(changes.contains("data-records=\"200\""), "{changes}");
        let rows: Vec<&str> = changes.split("<tr data-hosts=").skip(1).collect();
        assert_eq!(rows.len(), 3, "{changes}");
        assert!(rows[0].starts_with("\"100\" data-builtin=\"mlxconfig::set\" data-took=\"rebooted\"><td>node[001-100]</td><td>mlxconfig::set mt4119_pciconf1 LINK_TYPE_P1</td><td>ETH(2)</td><td class=\"changed\">IB(1)</td><td class=\"reboot-rebooted\">"), "{}", rows[0]);
        assert!(
            rows[1].starts_with(
                "\"99\" data-builtin=\"mlxfwmanager::update\" data-took=\"rebooted\"><td>node[001-007,009-100]</td>"
            ),
            "{}",
            rows[1]
        );
        assert!(rows[2].contains("<td>node008</td><td>mlxfwmanager::update 3b:00.0</td><td>16.31.1014</td><td class=\"changed\">16.35.2000</td>"), "{}", rows[2]);

        // The lanes: 98 alike, the 2 slower ones alike, the controller's.
        let timeline = section(&html, "timeline");
        assert!(
            timeline.contains("<details class=\"lanes\" data-hosts=\"98\">"),
            "{timeline:.2000}"
        );
        assert!(timeline.contains("<details class=\"lanes\" data-hosts=\"2\">"));
        assert_eq!(timeline.matches("<details").count(), 2);
    }
}
