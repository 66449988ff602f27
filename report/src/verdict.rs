//! The verdict, first on the page: pass or fail, each reason in one sentence (what the
//! runbook published with `report::verdict`, hosts that failed or did not finish, ibdiagnet
//! findings, what was left behind), then the tables the runbook published. A fabric with
//! findings heads it in one line (`fabric_verdict.rs`).

use std::fmt::Write as _;

use cairn_runtime::CONTROLLER;
use cairn_runtime::journal::HostStatus;

use crate::fold::{fold, hosts};
use crate::html::escape;
use crate::left_behind::left_behind;
use crate::published::{self, PublishedTable};
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// One sentence of the verdict.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Reason {
    pub(crate) ok: bool,
    pub(crate) text: String,
}

impl Reason {
    fn new(ok: bool, text: String) -> Self {
        Self { ok, text }
    }
}

/// Every reason, published verdicts first.
pub(crate) fn reasons(model: &RunModel) -> Vec<Reason> {
    let verdicts = published::verdicts(model);
    let mut reasons: Vec<Reason> = fold(
        verdicts
            .iter()
            .map(|v| ((v.ok, v.text.clone()), v.host.as_str())),
    )
    .into_iter()
    .map(|((ok, text), _)| Reason::new(ok, text))
    .collect();
    // A failed expectation that says what a published verdict already said is one reason.
    let said = |host: &str, message: &str| {
        verdicts
            .iter()
            .any(|v| !v.ok && v.host == host && v.text == message)
    };
    let failed = model.hosts.iter().filter_map(|host| {
        let failure = host.failure.as_ref()?;
        (!said(&host.name, &failure.message)).then_some((failure.message.clone(), &host.name))
    });
    for (message, names) in fold(failed) {
        let who = match names.as_slice() {
            [one] if *one == CONTROLLER => "the controller".to_owned(),
            _ => hosts(&names),
        };
        reasons.push(Reason::new(false, format!("{who} failed: {message}")));
    }
    let unfinished: Vec<&str> = model
        .hosts
        .iter()
        .filter(|h| matches!(h.status, None | Some(HostStatus::Cancelled)))
        .map(|h| h.name.as_str())
        .collect();
    if !unfinished.is_empty() {
        reasons.push(Reason::new(
            false,
            format!(
                "{} did not finish (stopped or interrupted)",
                hosts(&unfinished)
            ),
        ));
    }
    reasons.extend(ibdiagnet_findings(model));
    for (said, _) in left_behind(model) {
        reasons.push(Reason::new(false, format!("left behind: {said}")));
    }
    let done = model
        .fleet()
        .filter(|h| h.status == Some(HostStatus::Done))
        .count();
    let all = model.fleet().count();
    if done == all && all > 0 {
        reasons.insert(0, Reason::new(true, format!("all {all} hosts done")));
    }
    reasons
}

/// An `ib::ibdiagnet` scan with findings, per host that ran one (its latest scan).
fn ibdiagnet_findings(model: &RunModel) -> Vec<Reason> {
    model
        .hosts
        .iter()
        .filter_map(|host| {
            let scan = host.results("ib::ibdiagnet").last()?;
            let findings = scan.result["findings"].as_array().map_or(0, Vec::len);
            (scan.result["ok"] == false).then(|| {
                Reason::new(
                    false,
                    format!("ibdiagnet on {} reported {findings} finding(s)", host.name),
                )
            })
        })
        .collect()
}

/// The section.
pub(crate) struct VerdictSection;

impl Section for VerdictSection {
    fn id(&self) -> &'static str {
        "verdict"
    }

    fn title(&self) -> &'static str {
        "Verdict"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let reasons = reasons(model);
        // A fabric with findings never passes, even when the runbook did not expect on them.
        let fabric = crate::fabric_verdict::clauses(model);
        let pass = !reasons.is_empty() && reasons.iter().all(|r| r.ok) && fabric.is_empty();
        let (word, class) = if pass {
            ("PASS", "pass")
        } else {
            ("FAIL", "fail")
        };
        // A failing fabric is said in one line first: what a site lead reads before the rest.
        let headline = if fabric.is_empty() {
            word.to_owned()
        } else {
            format!("{word}: {}", fabric.join(", "))
        };
        let mut html = format!(
            "<p class=\"verdict {class}\" data-verdict=\"{class}\">{}</p><ul class=\"reasons\">",
            escape(&headline)
        );
        for reason in &reasons {
            let (mark, class) = if reason.ok {
                ("✓", "ok")
            } else {
                ("✗", "failed")
            };
            let _ = write!(
                html,
                "<li class=\"{class}\">{mark} {}</li>",
                escape(&reason.text)
            );
        }
        if reasons.is_empty() {
            html.push_str("<li class=\"failed\">✗ no host recorded anything</li>");
        }
        html.push_str("</ul>");
        for table in published::tables(model) {
            html.push_str(&table_html(&table));
        }
        Ok(Some(html))
    }
}

/// A published table.
fn table_html(table: &PublishedTable) -> String {
    let mut html = String::from("<table class=\"published\"><caption>");
    html.push_str(&escape(&table.title));
    if table.host != CONTROLLER {
        let _ = write!(
            html,
            " <span class=\"note\">({})</span>",
            escape(&table.host)
        );
    }
    html.push_str("</caption><thead><tr>");
    for column in &table.columns {
        let _ = write!(html, "<th>{}</th>", escape(column));
    }
    html.push_str("</tr></thead><tbody>");
    for row in &table.rows {
        html.push_str("<tr>");
        for cell in row {
            let _ = write!(html, "<td>{}</td>", escape(cell));
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    html
}
