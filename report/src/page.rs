//! The page: one self-contained HTML file, its CSS inline, its plots inline SVG; nothing is
//! loaded from anywhere and no script runs (a Content-Security-Policy says so to the browser).

use crate::fabric_matrix::FabricMatrixSection;
use crate::facts::FactsSection;
use crate::failures::FailuresSection;
use crate::html::escape;
use crate::ibdiagnet::IbdiagnetSection;
use crate::manifest_diff::ManifestSection;
use crate::perftest::PerftestSection;
use crate::recap::{RecapSection, SummarySection};
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::sockperf::SockperfSection;
use crate::timeline::TimelineSection;

/// The sections, in page order; a new kind of finding is one more entry.
pub(crate) static SECTIONS: &[&dyn Section] = &[
    &SummarySection,
    &RecapSection,
    &FailuresSection,
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
.track{position:relative;flex:1;height:14px;background:#f4f4f6}.span{position:absolute;top:0;height:100%}
.span.wait{background:repeating-linear-gradient(45deg,rgba(0,0,0,.18) 0 3px,transparent 3px 6px)}.span.reboot{background:#33334d;top:2px;height:10px}.span.budget{background:#e0a030;top:4px;height:6px}
.mark.resume{position:absolute;top:-2px;width:2px;height:18px;background:#b00020}
.legend span{margin-right:14px;font-size:12px;white-space:nowrap}.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:middle}
.legend i.wait{background:repeating-linear-gradient(45deg,rgba(0,0,0,.3) 0 3px,#eee 3px 6px)}.legend i.reboot{background:#33334d}.legend i.budget{background:#e0a030}.legend i.resume{background:#b00020;width:2px}
.plots{display:flex;flex-wrap:wrap;gap:12px}figure.plot{margin:0;width:560px;max-width:100%}figure.plot svg{width:100%;height:auto;display:block}
figcaption{font-size:12px;color:#555;overflow-wrap:anywhere}
figure.heatmap{margin:0 0 16px}figure.heatmap svg.heatmap{max-width:100%;height:auto;display:block}
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
