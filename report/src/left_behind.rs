//! What the run left behind on its hosts: a change still waiting for a reboot, a host still in
//! maintenance mode. Fed by the run model, so a journaled record of what a failure or a stop
//! left down is one more source here.

use serde_json::Value;

use crate::fold::{fold, hosts};
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// One thing a host was left with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct LeftBehind {
    pub(crate) host: String,
    /// In words: `in maintenance mode`, `a reboot pending (nmlx5_core parameters)`.
    pub(crate) what: String,
}

/// Everything the run left behind, host by host.
pub(crate) fn left_behind(model: &RunModel) -> Vec<LeftBehind> {
    let mut found = Vec::new();
    for host in &model.hosts {
        let maintenance = host
            .results("esxcli::maintenance_mode_set")
            .last()
            .is_some_and(|action| action.result.get("enabled") == Some(&Value::Bool(true)));
        if maintenance {
            found.push(LeftBehind {
                host: host.name.clone(),
                what: "in maintenance mode".into(),
            });
        }
        if let Some(why) = &host.reboot_pending {
            found.push(LeftBehind {
                host: host.name.clone(),
                what: format!("a reboot pending ({why})"),
            });
        }
    }
    found
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
        let mut html = String::from(
            "<table class=\"left-behind\"><thead><tr><th>hosts</th><th>left</th></tr></thead><tbody>",
        );
        for (what, names) in fold(found.into_iter().map(|item| (item.what, item.host))) {
            html.push_str(&format!(
                "<tr data-hosts=\"{}\"><td>{}</td><td>{}</td></tr>",
                names.len(),
                escape(&hosts(&names)),
                escape(&what)
            ));
        }
        html.push_str("</tbody></table>");
        Ok(Some(html))
    }
}
