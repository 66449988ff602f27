//! What the run left behind on its hosts: a host in maintenance mode, a VM left off, a reboot
//! sent and not seen back, changes still waiting for a reboot. The list is the runtime's
//! (`cairn_runtime::left_behind`, read from each host's journal), the one the recap's
//! `left down:` line and `--json` print, in the same words; hosts left alike are one row.

use cairn_runtime::LeftDown;

use crate::fold::{fold, hosts};
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// Everything the run left behind, hosts left alike folded into one sentence
/// (`esx[01-02] in maintenance mode`), with how many hosts each folds.
pub(crate) fn left_behind(model: &RunModel) -> Vec<(String, usize)> {
    let found = model
        .hosts
        .iter()
        .flat_map(|host| host.left_down.iter())
        .map(|left| (left.on(""), left.host()));
    fold(found)
        .into_iter()
        .map(|(alike, names): (LeftDown, Vec<&str>)| {
            (alike.on(&hosts(&names)).to_string(), names.len())
        })
        .collect()
}

/// The section: hosts folded by what they were left with.
pub(crate) struct LeftBehindSection;

impl Section for LeftBehindSection {
    fn id(&self) -> &'static str {
        "left-behind"
    }

    fn title(&self) -> &'static str {
        "Left behind"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let found = left_behind(model);
        if found.is_empty() {
            return Ok(None);
        }
        let mut html = String::from("<table class=\"left-behind\"><tbody>");
        for (said, count) in found {
            html.push_str(&format!(
                "<tr data-hosts=\"{count}\"><td>{}</td></tr>",
                escape(&said)
            ));
        }
        html.push_str("</tbody></table>");
        Ok(Some(html))
    }
}
