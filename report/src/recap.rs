//! The run's summary and its recap: one row per host, as Ansible's PLAY RECAP, with reboots
//! and time.

use cairn_runtime::journal::HostStatus;

use crate::html::{duration, escape, utc_time};
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
        let count = |status: Option<HostStatus>| {
            model
                .hosts
                .iter()
                .filter(|host| host.status == status)
                .count()
        };
        let params = if meta.params.is_empty() {
            "none (the runbook's defaults)".to_owned()
        } else {
            meta.params
                .iter()
                .map(|(name, value)| format!("<code>{}={}</code>", escape(name), escape(value)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let resumed = model
            .hosts
            .iter()
            .map(|h| h.resumes.len())
            .max()
            .unwrap_or(0);
        let wall = model
            .span()
            .map_or_else(String::new, |(first, last)| duration(last - first));
        let mut html = format!(
            "<dl class=\"summary\"><dt>run</dt><dd><code>{}</code>, started {}</dd><dt>runbook</dt><dd><code>{}</code></dd><dt>inventory</dt><dd><code>{}</code></dd><dt>params</dt><dd>{params}</dd><dt>hosts</dt><dd>{} done, {} failed, {} stopped, {} unfinished</dd><dt>first to last record</dt><dd>{wall}{}</dd></dl>",
            escape(&meta.run_id),
            utc_time(meta.at),
            escape(&meta.runbook.display().to_string()),
            escape(&meta.inventory.display().to_string()),
            count(Some(HostStatus::Done)),
            count(Some(HostStatus::Failed)),
            count(Some(HostStatus::Cancelled)),
            count(None),
            match resumed {
                0 => String::new(),
                1 => ", resumed once".to_owned(),
                n => format!(", resumed {n} times"),
            },
        );
        for note in &model.notes {
            html.push_str(&format!("<p class=\"note\">{}</p>", escape(note)));
        }
        Ok(Some(html))
    }
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
        for host in &model.hosts {
            let (status, class) = status_name(host.status);
            let c = host.counts;
            html.push_str(&format!(
                "<tr class=\"{class}\" data-host=\"{name}\"><td>{name}</td><td>{status}{pending}</td><td>{}</td><td class=\"{changed}\">{}</td><td class=\"{failed}\">{}</td><td>{}</td><td>{}</td></tr>",
                c.ok,
                c.changed,
                c.failed,
                c.rebooted,
                duration(host.active_ms),
                name = escape(&host.name),
                pending = host
                    .reboot_pending
                    .as_deref()
                    .map(|why| format!(", reboot pending: {}", escape(why)))
                    .unwrap_or_default(),
                changed = if c.changed > 0 { "changed" } else { "" },
                failed = if c.failed > 0 { "failed" } else { "" },
            ));
        }
        html.push_str("</tbody></table>");
        Ok(Some(html))
    }
}
