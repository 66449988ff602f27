//! The run's summary and its recap: one row per host, as Ansible's PLAY RECAP, with reboots
//! and time.

use std::fmt::Write as _;

use cairn_runtime::journal::HostStatus;

use crate::fold::{fold, hosts};
use crate::host_model::HostModel;

use crate::html::{duration, escape, utc_time};
use crate::provenance::provenance;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// What a host's status is called in the page, and its CSS class.
pub(crate) fn status_name(status: Option<HostStatus>) -> (&'static str, &'static str) {
    match status {
        Some(HostStatus::Done) => ("done", "ok"),
        Some(HostStatus::Failed) => ("failed", "failed"),
        Some(HostStatus::Cancelled) => ("stopped", "stopped"),
        None => ("unfinished", "stopped"),
    }
}

/// The summary: what ran, when, with which params, and how many hosts ended how.
pub(crate) struct SummarySection;

impl Section for SummarySection {
    fn id(&self) -> &'static str {
        "summary"
    }

    fn title(&self) -> &'static str {
        "Summary"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let meta = &model.meta;
        let found = provenance(model);
        let mut params: Vec<String> = found
            .params
            .iter()
            .map(|p| {
                format!(
                    "<code class=\"{}\">{}={}</code>",
                    if p.given { "given" } else { "default" },
                    escape(&p.name),
                    escape(&p.value)
                )
            })
            .collect();
        if params.is_empty() {
            params.push("none".into());
        }
        if let Some(note) = &found.params_note {
            params.push(format!("<span class=\"note\">({})</span>", escape(note)));
        }
        let attempts = model
            .fleet()
            .chain(model.controller())
            .map(|h| h.sessions.len())
            .max();
        let wall = model
            .span()
            .map_or_else(String::new, |(first, last)| duration(last - first));
        let hash = |hash: &Option<String>| {
            hash.as_deref().map_or_else(
                || "unknown".to_owned(),
                |h| format!("SHA-256 <code>{h}</code>"),
            )
        };
        let runbook_now = match found.runbook_unchanged {
            Some(true) => "",
            Some(false) => ", the file has changed since",
            None => ", the file cannot be read now",
        };
        let mut html = format!(
            "<dl class=\"summary\"><dt>run</dt><dd><code>{}</code>, started {}</dd><dt>runbook</dt><dd><code>{}</code>, {}{runbook_now}</dd><dt>inventory</dt><dd><code>{}</code>, {} (the file as it is now)</dd><dt>params</dt><dd>{} <span class=\"note\">(bold: given with <code>--param</code>; the others are the runbook's defaults)</span></dd><dt>hosts</dt><dd data-count=\"hosts\">{}</dd><dt>first to last record</dt><dd>{wall}{}</dd><dt>written by</dt><dd>cairn {}</dd></dl>",
            escape(&meta.run_id),
            utc_time(meta.at),
            escape(&meta.runbook.display().to_string()),
            hash(&found.runbook_hash),
            escape(&meta.inventory.display().to_string()),
            hash(&found.inventory_hash),
            params.join(" "),
            host_counts(model),
            match attempts.unwrap_or(1) {
                0 | 1 => String::new(),
                n => format!(", in <a href=\"#attempts\">{n} attempts</a>"),
            },
            found.version,
        );
        for note in &model.notes {
            html.push_str(&format!("<p class=\"note\">{}</p>", escape(note)));
        }
        Ok(Some(html))
    }
}

/// `9 done, 0 failed, 0 stopped`, as the command line's last line counts them (the
/// controller is no host), then the controller apart.
pub fn host_counts(model: &RunModel) -> String {
    let count = |status: Option<HostStatus>| model.fleet().filter(|h| h.status == status).count();
    let mut text = format!(
        "{} done, {} failed, {} stopped",
        count(Some(HostStatus::Done)),
        count(Some(HostStatus::Failed)),
        count(Some(HostStatus::Cancelled)),
    );
    let unfinished = count(None);
    if unfinished > 0 {
        text.push_str(&format!(", {unfinished} unfinished"));
    }
    if let Some(controller) = model.controller() {
        text.push_str(&format!(
            "; the controller: {}",
            status_name(controller.status).0
        ));
    }
    text
}

/// The recap table.
pub(crate) struct RecapSection;

impl Section for RecapSection {
    fn id(&self) -> &'static str {
        "recap"
    }

    fn title(&self) -> &'static str {
        "Recap"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let mut html = String::from(
            "<table class=\"recap\"><thead><tr><th>host</th><th>status</th><th>ok</th><th>changed</th><th>failed</th><th>rebooted</th><th>time</th></tr></thead><tbody>",
        );
        let rows = fold(model.fleet().map(|host| {
            (
                (
                    status_name(host.status).0,
                    host.counts,
                    host.reboot_pending.clone(),
                ),
                host,
            )
        }));
        for (_, members) in &rows {
            html.push_str(&recap_row(members));
        }
        html.push_str("</tbody>");
        if let Some(controller) = model.controller() {
            html.push_str("<tbody class=\"controller\">");
            html.push_str(&recap_row(&[controller]));
            html.push_str("</tbody>");
        }
        html.push_str("</table>");
        if rows.len() < model.fleet().count() {
            html.push_str("<p class=\"note\">Hosts with the same status and counts are one row; open it for each host's time.</p>");
        }
        Ok(Some(html))
    }
}

/// One row for hosts with the same status and counts: a single host plainly, several folded
/// (`node[002-100]`) with each host's time inside a `<details>`.
fn recap_row(members: &[&HostModel]) -> String {
    let Some(first) = members.first() else {
        return String::new();
    };
    let (status, class) = status_name(first.status);
    let c = first.counts;
    let names: Vec<&str> = members.iter().map(|h| h.name.as_str()).collect();
    let folded = escape(&hosts(&names));
    let (name, time) = match members {
        [one] => (folded.clone(), duration(one.active_ms)),
        _ => {
            let mut inner = String::new();
            for host in members {
                let _ = write!(
                    inner,
                    "<tr><td>{}</td><td>{}</td></tr>",
                    escape(&host.name),
                    duration(host.active_ms)
                );
            }
            let least = members.iter().map(|h| h.active_ms).min().unwrap_or(0);
            let most = members.iter().map(|h| h.active_ms).max().unwrap_or(0);
            (
                format!(
                    "<details><summary>{folded}</summary><table class=\"members\">{inner}</table></details>"
                ),
                format!("{} – {}", duration(least), duration(most)),
            )
        }
    };
    format!(
        "<tr class=\"{class}\" data-host=\"{folded}\" data-hosts=\"{}\"><td>{name}</td><td>{status}{pending}</td><td>{}</td><td class=\"{changed}\">{}</td><td class=\"{failed}\">{}</td><td>{}</td><td>{time}</td></tr>",
        members.len(),
        c.ok,
        c.changed,
        c.failed,
        c.rebooted,
        pending = first
            .reboot_pending
            .as_deref()
            .map(|why| format!(", reboot pending: {}", escape(why)))
            .unwrap_or_default(),
        changed = if c.changed > 0 { "changed" } else { "" },
        failed = if c.failed > 0 { "failed" } else { "" },
    )
}
