//! A timeline per host: its stages as coloured spans on the run's time axis, the time it
//! waited at the end of a stage for the other hosts (hatched), for the disruption budget
//! (amber), its reboots (dark), and where it was resumed; above them the axis in UTC and each
//! attempt's span. Lanes that look the same (to a tenth of a percent of the width) are one
//! folded lane, `node[002-100]`, opened with `<details>`. Drawn with CSS (percent offsets),
//! no script, so 1,000 hosts stay a light page.

use std::fmt::Write as _;

use crate::attempts::attempts;
use crate::fold::{fold, hosts};
use crate::host_model::HostModel;
use crate::html::{duration, escape};
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::time_axis::TimeAxis;

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
        let attempts = attempts(model);
        let Some(axis) = TimeAxis::new(attempts.iter().map(|a| (a.start, a.end)).collect()) else {
            return Ok(None);
        };
        let mut stages: Vec<&str> = Vec::new();
        for stage in model.hosts.iter().flat_map(|h| &h.stages) {
            if !stages.contains(&stage.name.as_str()) {
                stages.push(&stage.name);
            }
        }
        let painter = Painter {
            axis: &axis,
            stages: &stages,
        };
        let mut html = String::from("<div class=\"timeline\">");
        html.push_str(&axis_lane(&axis));
        html.push_str("<span class=\"lane attempts\"><span class=\"lane-name\">attempts</span><span class=\"track\">");
        for attempt in &attempts {
            let (left, right) = (axis.pos(attempt.start), axis.pos(attempt.end));
            let _ = write!(
                html,
                "<span class=\"span attempt {}\" style=\"left:{left:.3}%;width:{:.3}%\" title=\"attempt {} · {}\">{}</span>",
                if attempt.clean() { "ok" } else { "failed" },
                (right - left).max(0.3),
                attempt.number,
                duration(attempt.end - attempt.start),
                attempt.number,
            );
        }
        html.push_str("</span></span>");
        let lanes = fold(model.hosts.iter().map(|host| (painter.shape(host), host)));
        for (_, members) in &lanes {
            html.push_str(&folded_lanes(&painter, members));
        }
        html.push_str(&legend(&painter, lanes.len() < model.hosts.len()));
        html.push_str("</div>");
        Ok(Some(html))
    }
}

/// The axis: ticks in UTC, and a break where no attempt ran.
fn axis_lane(axis: &TimeAxis) -> String {
    let mut html = String::from(
        "<span class=\"lane axis\"><span class=\"lane-name\">UTC</span><span class=\"track axis\">",
    );
    for (pos, label) in axis.ticks() {
        let _ = write!(
            html,
            "<span class=\"tick\" style=\"left:{pos:.3}%\">{}</span>",
            escape(&label)
        );
    }
    for (pos, idle) in axis.breaks() {
        let _ = write!(
            html,
            "<span class=\"break\" style=\"left:{pos:.3}%\" title=\"nothing ran for {idle}\"></span>"
        );
    }
    html.push_str("</span></span>");
    html
}

/// What draws a host's lane.
struct Painter<'a> {
    axis: &'a TimeAxis,
    stages: &'a [&'a str],
}

impl Painter<'_> {
    fn color(&self, name: &str) -> &'static str {
        let index = self.stages.iter().position(|s| *s == name).unwrap_or(0);
        PALETTE[index % PALETTE.len()]
    }

    /// The lane's spans with positions to a tenth of a percent and no tooltips: lanes with the
    /// same shape look the same and fold.
    fn shape(&self, host: &HostModel) -> String {
        let mut shape = String::new();
        let pos = |at: u64| (self.axis.pos(at) * 10.0).round() as i64;
        for stage in &host.stages {
            let _ = write!(
                shape,
                "s{}:{}-{};",
                stage.name,
                pos(stage.start),
                pos(stage.end)
            );
        }
        for reboot in &host.reboots {
            let _ = write!(shape, "r{}-{};", pos(reboot.start), pos(reboot.end));
        }
        for wait in &host.budget_waits {
            let _ = write!(shape, "b{}-{};", pos(wait.start), pos(wait.end));
        }
        for resume in &host.resumes {
            let _ = write!(shape, "m{};", pos(*resume));
        }
        shape
    }

    /// The spans of `host`'s lane.
    fn spans(&self, host: &HostModel) -> String {
        let pos = |at: u64| self.axis.pos(at);
        let mut html = String::new();
        for stage in &host.stages {
            let (left, right) = (pos(stage.start), pos(stage.end));
            let _ = write!(
                html,
                "<span class=\"span stage\" style=\"left:{left:.3}%;width:{:.3}%;background:{}\" title=\"{} · {}\"></span>",
                (right - left).max(0.15),
                self.color(&stage.name),
                escape(&stage.name),
                duration(stage.end - stage.start),
            );
            let waited_from = stage.last_action.unwrap_or(stage.start);
            if pos(stage.end) - pos(waited_from) >= 0.5 {
                let _ = write!(
                    html,
                    "<span class=\"span wait\" style=\"left:{:.3}%;width:{:.3}%\" title=\"waiting for the other hosts · {}\"></span>",
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
                "<span class=\"span reboot\" style=\"left:{:.3}%;width:{:.3}%\" title=\"reboot · {}{waited}\"></span>",
                pos(reboot.start),
                (pos(reboot.end) - pos(reboot.start)).max(0.3),
                duration(reboot.end - reboot.start),
            );
        }
        for wait in &host.budget_waits {
            let _ = write!(
                html,
                "<span class=\"span budget\" style=\"left:{:.3}%;width:{:.3}%\" title=\"waiting for the disruption budget before a {} · {}\"></span>",
                pos(wait.start),
                (pos(wait.end) - pos(wait.start)).max(0.3),
                escape(&wait.reason),
                duration(wait.end - wait.start),
            );
        }
        for resume in &host.resumes {
            let _ = write!(
                html,
                "<span class=\"mark resume\" style=\"left:{:.3}%\" title=\"resumed\"></span>",
                pos(*resume)
            );
        }
        html
    }

    fn lane(&self, name: &str, host: &HostModel) -> String {
        format!(
            "<span class=\"lane\" data-host=\"{0}\"><span class=\"lane-name\" title=\"{0}\">{0}</span><span class=\"track\">{1}</span></span>",
            escape(name),
            self.spans(host)
        )
    }
}

/// One lane for one host; for several, the first's lane named after all of them, and each
/// host's lane inside a `<details>`.
fn folded_lanes(painter: &Painter<'_>, members: &[&HostModel]) -> String {
    let Some(first) = members.first() else {
        return String::new();
    };
    if members.len() == 1 {
        return painter.lane(&first.name, first);
    }
    let names: Vec<&str> = members.iter().map(|h| h.name.as_str()).collect();
    let mut html = format!(
        "<details class=\"lanes\" data-hosts=\"{}\"><summary>{}</summary>",
        members.len(),
        painter.lane(&hosts(&names), first)
    );
    for host in members {
        html.push_str(&painter.lane(&host.name, host));
    }
    html.push_str("</details>");
    html
}

fn legend(painter: &Painter<'_>, folded: bool) -> String {
    let mut html = String::from("<p class=\"legend\">");
    for name in painter.stages {
        let _ = write!(
            html,
            "<span><i style=\"background:{}\"></i>{}</span>",
            painter.color(name),
            escape(name)
        );
    }
    html.push_str("<span><i class=\"wait\"></i>waiting for the other hosts</span><span><i class=\"budget\"></i>waiting for the disruption budget</span><span><i class=\"reboot\"></i>reboot</span><span><i class=\"resume\"></i>resumed</span><span><i class=\"break\"></i>break: no attempt ran</span></p>");
    let _ = write!(
        html,
        "<p class=\"note\">Times are the journal's (<code>at</code>), in UTC; the time between attempts is cut to a narrow break. A simulated host's virtual reboot shows as short, with the time it took in its tooltip.{}</p>",
        if folded {
            " Hosts whose lanes look the same are one lane: open it for each host's."
        } else {
            ""
        }
    );
    html
}
