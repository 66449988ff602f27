//! The run's attempts: the first session of every host, then each resume, with how each
//! ended and what failed in it, so a resumed run keeps the failures that led to the resume.

use std::fmt::Write as _;

use cairn_runtime::journal::HostStatus;

use crate::fold::{fold, hosts};
use crate::html::{duration, escape, utc_time};
use crate::recap::status_name;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// One attempt: the hosts' sessions of the same number.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attempt {
    /// 1-based.
    pub(crate) number: usize,
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Each host's end in this attempt: `done`, `failed`, `stopped`, or `interrupted` (no end
    /// record: the process was killed or crashed).
    pub(crate) ended: Vec<(String, &'static str)>,
    /// `(host, message)` for each failure recorded in this attempt.
    pub(crate) failures: Vec<(String, String)>,
}

impl Attempt {
    /// Whether the attempt ended with nothing failed, stopped or interrupted.
    pub(crate) fn clean(&self) -> bool {
        self.failures.is_empty() && self.ended.iter().all(|(_, how)| *how == "done")
    }
}

/// The attempts, in order.
pub(crate) fn attempts(model: &RunModel) -> Vec<Attempt> {
    let count = model
        .hosts
        .iter()
        .map(|h| h.sessions.len())
        .max()
        .unwrap_or(0);
    (0..count)
        .filter_map(|index| {
            let sessions: Vec<_> = model
                .hosts
                .iter()
                .filter_map(|host| Some((host, host.sessions.get(index)?)))
                .collect();
            let start = sessions.iter().map(|(_, s)| s.start).min()?;
            let end = sessions.iter().map(|(_, s)| s.end).max()?;
            let mut failures = Vec::new();
            let mut ended = Vec::new();
            for (host, session) in &sessions {
                let how = match session.status {
                    None => "interrupted",
                    status => status_name(status).0,
                };
                ended.push((host.name.clone(), how));
                for failed in &session.failed_actions {
                    failures.push((host.name.clone(), failed.clone()));
                }
                if let (Some(HostStatus::Failed), Some(error)) = (session.status, &session.error)
                    && !session
                        .failed_actions
                        .iter()
                        .any(|f| f.ends_with(error.as_str()))
                {
                    failures.push((host.name.clone(), error.clone()));
                }
            }
            Some(Attempt {
                number: index + 1,
                start,
                end,
                ended,
                failures,
            })
        })
        .collect()
}

/// The section.
pub(crate) struct AttemptsSection;

impl Section for AttemptsSection {
    fn id(&self) -> &'static str {
        "attempts"
    }

    fn title(&self) -> &'static str {
        "Attempts"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let attempts = attempts(model);
        if attempts.is_empty() {
            return Ok(None);
        }
        let mut html = String::from(
            "<table class=\"attempts\"><thead><tr><th>attempt</th><th>from</th><th>to</th><th>length</th><th>how the hosts ended it</th><th>failures</th></tr></thead><tbody>",
        );
        for attempt in &attempts {
            let ended = fold(
                attempt
                    .ended
                    .iter()
                    .map(|(host, how)| (*how, host.as_str())),
            )
            .into_iter()
            .map(|(how, names)| format!("{} {how}", escape(&hosts(&names))))
            .collect::<Vec<_>>()
            .join("; ");
            let failures = fold(
                attempt
                    .failures
                    .iter()
                    .map(|(host, m)| (m.as_str(), host.as_str())),
            )
            .into_iter()
            .map(|(message, names)| {
                format!(
                    "<li><b>{}</b>: {}</li>",
                    escape(&hosts(&names)),
                    escape(message)
                )
            })
            .collect::<String>();
            let _ = write!(
                html,
                "<tr class=\"{}\" data-attempt=\"{}\" data-failures=\"{}\"><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{ended}</td><td><ul class=\"failures\">{failures}</ul></td></tr>",
                if attempt.clean() { "ok" } else { "failed" },
                attempt.number,
                attempt.failures.len(),
                attempt.number,
                if attempt.number == 1 {
                    "started"
                } else {
                    "resumed"
                },
                utc_time(attempt.start),
                utc_time(attempt.end),
                duration(attempt.end - attempt.start),
            );
        }
        html.push_str("</tbody></table><p class=\"note\">An attempt is a session of the run: its start, then each <code>cairn resume</code>. A host with no end record in an attempt was interrupted (the process was killed, crashed, or is waiting for a decision).</p>");
        Ok(Some(html))
    }
}
