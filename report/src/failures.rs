//! Every failure with its runbook line: hosts that failed at the same line with the same
//! message are shown once, with their names.

use std::collections::BTreeMap;

use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// Where (file and line) and what: the failures that are shown as one.
type FailureKey = (Option<(String, u32)>, String);

/// The section.
pub(crate) struct FailuresSection;

impl Section for FailuresSection {
    fn id(&self) -> &'static str {
        "failures"
    }

    fn title(&self) -> &'static str {
        "Failures"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let mut groups: BTreeMap<FailureKey, Vec<&str>> = BTreeMap::new();
        for host in &model.hosts {
            if let Some(failure) = &host.failure {
                groups
                    .entry((failure.location.clone(), failure.message.clone()))
                    .or_default()
                    .push(&host.name);
            }
        }
        if groups.is_empty() {
            return Ok(None);
        }
        let mut sources: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut html = String::new();
        for ((location, message), hosts) in &groups {
            let place = match location {
                Some((file, line)) => {
                    let text = sources
                        .entry(file.clone())
                        .or_insert_with(|| std::fs::read_to_string(file).ok());
                    let code = text
                        .as_deref()
                        .and_then(|t| t.lines().nth(usize::try_from(*line).ok()?.checked_sub(1)?))
                        .map(|code| {
                            format!(
                                "<pre class=\"code\"><span class=\"lineno\">{line}</span> {}</pre>",
                                escape(code.trim_end())
                            )
                        })
                        .unwrap_or_else(|| {
                            "<p class=\"note\">(the file cannot be read now)</p>".into()
                        });
                    format!(
                        "<p class=\"where\"><code>{}:{line}</code></p>{code}",
                        escape(file)
                    )
                }
                None => "<p class=\"where\">(the journal names no runbook line)</p>".into(),
            };
            html.push_str(&format!(
                "<div class=\"failure\" data-hosts=\"{}\"><p><strong>{} host{}:</strong> {}</p><p class=\"message\">{}</p>{place}</div>",
                hosts.len(),
                hosts.len(),
                if hosts.len() == 1 { "" } else { "s" },
                escape(&hosts.join(", ")),
                escape(message),
            ));
        }
        Ok(Some(html))
    }
}
