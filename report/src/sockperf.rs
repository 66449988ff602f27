//! sockperf ping-pong through the kernel against the same with VMA (`LD_PRELOAD=libvma.so`),
//! as NVIDIA's VMA guide compares them ("Running VMA"): the percentiles of both on one chart.

use cairn_stdlib::sockperf::{Percentile, PingPongRun};
use serde_json::Value;

use crate::chart::{BLUE, Chart, ORANGE, Scale, Series};
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::Unread;

/// One ping-pong run.
#[derive(Debug, Clone)]
struct Run {
    client: String,
    server: String,
    address: String,
    vma: bool,
    command: String,
    avg_us: Option<f64>,
    percentiles: Vec<Percentile>,
}

/// A kernel run and the VMA run after it, between the same hosts to the same address.
#[derive(Debug, Clone)]
pub(crate) struct Comparison {
    kernel: Run,
    vma: Run,
}

/// Every kernel/VMA pair of the run: each VMA run is paired with the latest kernel run before
/// it between the same client, server and address.
///
/// The results that did not read as `sockperf::ping_pong`'s type come back too.
pub(crate) fn comparisons(model: &RunModel) -> (Vec<Comparison>, Unread) {
    let mut found = Vec::new();
    let mut unread = Unread::of("sockperf ping-pong");
    for host in &model.hosts {
        let mut kernel: Vec<Run> = Vec::new();
        for action in host.results("sockperf::ping_pong") {
            if action.result.get("checked") == Some(&Value::Bool(true)) {
                continue;
            }
            let Some(result) = unread.read::<PingPongRun>(&host.name, action) else {
                continue;
            };
            let run = Run {
                client: result.client,
                server: result.server,
                address: action
                    .args
                    .pointer("/options/address")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                vma: action.args.pointer("/options/vma").and_then(Value::as_bool) == Some(true),
                command: result.command,
                avg_us: Some(result.avg_us),
                percentiles: result.output.percentiles,
            };
            if !run.vma {
                kernel.push(run);
                continue;
            }
            let same = |k: &&Run| {
                k.client == run.client && k.server == run.server && k.address == run.address
            };
            if let Some(base) = kernel.iter().rev().find(same) {
                found.push(Comparison {
                    kernel: base.clone(),
                    vma: run,
                });
            }
        }
    }
    (found, unread)
}

impl Comparison {
    /// The percentiles both runs report, lowest first, and the chart of them.
    pub(crate) fn chart(&self) -> Chart {
        let mut shared: Vec<f64> = self
            .kernel
            .percentiles
            .iter()
            .map(|p| p.percentile)
            .filter(|p| self.vma.percentiles.iter().any(|v| v.percentile == *p))
            .collect();
        shared.sort_by(f64::total_cmp);
        let series = |run: &Run| -> Vec<(f64, f64)> {
            shared
                .iter()
                .enumerate()
                .filter_map(|(index, p)| {
                    let found = run.percentiles.iter().find(|x| x.percentile == *p)?;
                    Some((index as f64, found.usec))
                })
                .collect()
        };
        let avg = |run: &Run| {
            run.avg_us
                .map_or_else(String::new, |a| format!(" (avg {a} µs)"))
        };
        Chart {
            title: format!(
                "sockperf ping-pong {} → {} {}",
                self.kernel.client, self.kernel.server, self.kernel.address
            ),
            x: (
                "percentile".into(),
                Scale::Categories(shared.iter().map(|p| format!("{p}%")).collect()),
            ),
            y: ("µs".into(), Scale::Log10),
            series: vec![
                Series {
                    label: format!("kernel{}", avg(&self.kernel)),
                    color: ORANGE,
                    points: series(&self.kernel),
                    markers: true,
                    dashed: false,
                },
                Series {
                    label: format!("VMA{}", avg(&self.vma)),
                    color: BLUE,
                    points: series(&self.vma),
                    markers: true,
                    dashed: false,
                },
            ],
        }
    }
}

/// The section: a chart per comparison.
pub(crate) struct SockperfSection;

impl Section for SockperfSection {
    fn id(&self) -> &'static str {
        "sockperf"
    }

    fn title(&self) -> &'static str {
        "sockperf: kernel against VMA"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let (found, unread) = comparisons(model);
        if found.is_empty() && unread.is_empty() {
            return Ok(None);
        }
        let mut html = unread.html();
        html.push_str("<div class=\"plots\">");
        for comparison in &found {
            let chart = comparison.chart();
            let points: usize = chart.series.iter().map(|s| s.points.len()).sum();
            html.push_str(&format!(
                "<figure class=\"plot\" data-kind=\"sockperf\" data-points=\"{points}\" data-client=\"{}\" data-server=\"{}\">{}<figcaption><code>{}</code> against <code>{}</code></figcaption></figure>",
                escape(&comparison.kernel.client),
                escape(&comparison.kernel.server),
                chart.svg()?,
                escape(&comparison.kernel.command),
                escape(&comparison.vma.command),
            ));
        }
        html.push_str("</div>");
        Ok(Some(html))
    }
}
