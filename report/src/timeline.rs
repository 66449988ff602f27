//! A timeline per host: its stages as coloured spans on the run's time axis, the time it
//! waited at the end of a stage for the other hosts (hatched), for the disruption budget
//! (amber), its reboots (dark), and where
//! it was resumed. Drawn with CSS (percent offsets), so 200 hosts stay a light page.

use std::fmt::Write as _;

use crate::html::{duration, escape};
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// Stage colours, reused in order.
const PALETTE: [&str; 10] = [
    "#8ecae6", "#b5e48c", "#ffd166", "#f4a261", "#cdb4db", "#90be6d", "#f9c74f", "#a8dadc",
    "#e9c46a", "#bde0fe",
];

/// The section.
pub(crate) struct TimelineSection;

impl Section for TimelineSection {
    fn id(&self) -> &'static str {
        "timeline"
    }

    fn title(&self) -> &'static str {
        "Timeline"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let Some((start, end)) = model.span() else {
            return Ok(None);
        };
        let total = (end - start).max(1) as f64;
        let pos = |at: u64| (at.saturating_sub(start)) as f64 * 100.0 / total;
        let mut stages: Vec<&str> = Vec::new();
        for host in &model.hosts {
            for stage in &host.stages {
                if !stages.contains(&stage.name.as_str()) {
                    stages.push(&stage.name);
                }
            }
        }
        let color = |name: &str| {
            let index = stages.iter().position(|s| *s == name).unwrap_or(0);
            PALETTE[index % PALETTE.len()]
        };
        let mut html = String::from("<div class=\"timeline\">");
        for host in &model.hosts {
            let _ = write!(
                html,
                "<div class=\"lane\" data-host=\"{0}\"><span class=\"lane-name\">{0}</span><div class=\"track\">",
                escape(&host.name)
            );
            for stage in &host.stages {
                let (left, right) = (pos(stage.start), pos(stage.end));
                let _ = write!(
                    html,
                    "<div class=\"span stage\" style=\"left:{left:.3}%;width:{:.3}%;background:{}\" title=\"{} · {}\"></div>",
                    (right - left).max(0.15),
                    color(&stage.name),
                    escape(&stage.name),
                    duration(stage.end - stage.start),
                );
                let waited_from = stage.last_action.unwrap_or(stage.start);
                if stage.end > waited_from && stage.end - waited_from >= (total / 200.0) as u64 {
                    let _ = write!(
                        html,
                        "<div class=\"span wait\" style=\"left:{:.3}%;width:{:.3}%\" title=\"waiting for the other hosts · {}\"></div>",
                        pos(waited_from),
                        pos(stage.end) - pos(waited_from),
                        duration(stage.end - waited_from),
                    );
                }
            }
            for reboot in &host.reboots {
                let waited = reboot.waited_ms.map_or_else(String::new, |ms| {
                    format!(", the host took {}", duration(ms))
                });
                let _ = write!(
                    html,
                    "<div class=\"span reboot\" style=\"left:{:.3}%;width:{:.3}%\" title=\"reboot · {}{waited}\"></div>",
                    pos(reboot.start),
                    (pos(reboot.end) - pos(reboot.start)).max(0.3),
                    duration(reboot.end - reboot.start),
                );
            }
            for wait in &host.budget_waits {
                let _ = write!(
                    html,
                    "<div class=\"span budget\" style=\"left:{:.3}%;width:{:.3}%\" title=\"waiting for the disruption budget before a {} · {}\"></div>",
                    pos(wait.start),
                    (pos(wait.end) - pos(wait.start)).max(0.3),
                    escape(&wait.reason),
                    duration(wait.end - wait.start),
                );
            }
            for resume in &host.resumes {
                let _ = write!(
                    html,
                    "<div class=\"mark resume\" style=\"left:{:.3}%\" title=\"resumed\"></div>",
                    pos(*resume)
                );
            }
            html.push_str("</div></div>");
        }
        html.push_str("<p class=\"legend\">");
        for name in &stages {
            let _ = write!(
                html,
                "<span><i style=\"background:{}\"></i>{}</span>",
                color(name),
                escape(name)
            );
        }
        let _ = write!(
            html,
            "<span><i class=\"wait\"></i>waiting for the other hosts</span><span><i class=\"budget\"></i>waiting for the disruption budget</span><span><i class=\"reboot\"></i>reboot</span><span><i class=\"resume\"></i>resumed</span></p><p class=\"note\">{} from the first record to the last; times are the journal's (<code>at</code>), so a simulated host's virtual reboot shows as short, with the time it took in its tooltip.</p></div>",
            duration(end - start)
        );
        Ok(Some(html))
    }
}
