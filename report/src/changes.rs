//! What changed, per host and folded across hosts: every change record of the journals as
//! before → after rows, hosts with the same change one row (`esx[01-32]`), with the reboot it
//! needed and whether it took: a change the host did not apply, or an action that failed while
//! changing it, is a row of its own, marked so.

use std::fmt::Write as _;

use crate::change_record::{ChangeRecord, changes};
use crate::fold::{fold, hosts};
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::Unread;

/// The section.
pub(crate) struct ChangesSection;

impl Section for ChangesSection {
    fn id(&self) -> &'static str {
        "changes"
    }

    fn title(&self) -> &'static str {
        "What changed"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let mut unread = Unread::of("the changes");
        let records: Vec<(ChangeRecord, &str)> = model
            .hosts
            .iter()
            .flat_map(|host| {
                changes(host, &mut unread)
                    .into_iter()
                    .map(|c| (c, host.name.as_str()))
            })
            .collect();
        let rows = fold(records);
        if rows.is_empty() {
            return Ok(None);
        }
        let total: usize = rows.iter().map(|(_, names)| names.len()).sum();
        let mut html = unread.html();
        let _ = write!(
            html,
            "<p class=\"note\">{total} change record(s) in the journals, as {} row(s): hosts with the same change are one row.</p><table class=\"changes\" data-records=\"{total}\"><thead><tr><th>hosts</th><th>change</th><th>before</th><th>after</th><th>reboot</th></tr></thead><tbody>",
            rows.len()
        );
        for (record, names) in &rows {
            html.push_str(&row(record, names));
        }
        html.push_str("</tbody></table>");
        Ok(Some(html))
    }
}

/// One folded row: a line per item, the hosts and what became of the change spanning them.
fn row(record: &ChangeRecord, names: &[&str]) -> String {
    let lines = |pick: fn(&crate::change_record::ChangeItem) -> &str| {
        record
            .items
            .iter()
            .map(|item| escape(pick(item)))
            .collect::<Vec<_>>()
            .join("<br>")
    };
    let took = &record.took;
    let mut html = String::new();
    let _ = write!(
        html,
        "<tr data-hosts=\"{}\" data-builtin=\"{}\" data-took=\"{class}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"{after}\">{}</td><td class=\"reboot-{class}\">{}</td></tr>",
        names.len(),
        escape(&record.builtin),
        escape(&hosts(names)),
        if record.items.is_empty() {
            escape(&record.builtin)
        } else {
            lines(|item| &item.what)
        },
        lines(|item| &item.before),
        lines(|item| &item.after),
        escape(&took.said()),
        class = took.class(),
        after = if took.applied() {
            "changed"
        } else {
            "not-applied"
        },
    );
    html
}
