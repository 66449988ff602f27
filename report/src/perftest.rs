//! perftest measurements (`ib_send_bw`, `ib_send_lat`, ...) from the journal's typed results,
//! and one plot per measurement: bandwidth or latency against message size, with the port's
//! line rate drawn.

use cairn_stdlib::perftest::{PairedRun, PerftestRow};
use serde_json::Value;

use crate::chart::{BLUE, Chart, GREY, LIMIT, Scale, Series};
use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::{Unread, read_results};

/// Bandwidth or latency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `ib_*_bw`: Gb/s.
    Bandwidth,
    /// `ib_*_lat`: µs.
    Latency,
}

/// One perftest run between a pair of hosts on one device.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Measurement {
    /// The host whose journal recorded it (the controller, usually).
    pub(crate) recorded_by: String,
    /// The client and server hosts.
    pub(crate) client: String,
    /// The server.
    pub(crate) server: String,
    /// The RDMA device on the client.
    pub(crate) device: String,
    /// `ib_send_bw`.
    pub(crate) program: String,
    /// The command line.
    pub(crate) command: String,
    /// Bandwidth or latency.
    pub(crate) kind: Kind,
    /// `IB` or `Ethernet`, and the MTU, from the banner.
    pub(crate) link: String,
    /// (bytes, average Gb/s or typical µs) per message size.
    pub(crate) points: Vec<(f64, f64)>,
    /// (bytes, peak Gb/s or 99th percentile µs).
    pub(crate) secondary: Vec<(f64, f64)>,
    /// The client port's rate (Gb/s) from its journal's `ib::status` or `ib::wait_active`.
    pub(crate) line_rate_gbps: Option<f64>,
}

/// Every perftest measurement of the run, in the order they were recorded, and the results
/// that did not read as `perftest::*`'s type.
pub(crate) fn measurements(model: &RunModel) -> (Vec<Measurement>, Unread) {
    let mut unread = Unread::of("perftest");
    let results: Vec<(&str, _, PairedRun)> = read_results(model, &mut unread, |b| {
        // `perftest::matrix` journals its pairs' results as one list, not a run.
        b.starts_with("perftest::") && b != "perftest::matrix"
    });
    let found = results
        .into_iter()
        .filter_map(|(host, action, result)| measurement(model, host, &action.args, result))
        .collect();
    (found, unread)
}

fn measurement(
    model: &RunModel,
    recorded_by: &str,
    args: &Value,
    result: PairedRun,
) -> Option<Measurement> {
    let kind = match result.run.kind.as_deref() {
        Some("bw") => Kind::Bandwidth,
        Some("lat") => Kind::Latency,
        _ => return None,
    };
    let pick = |row: &PerftestRow| match kind {
        Kind::Bandwidth => (row.bw_average_gbps, row.bw_peak_gbps),
        Kind::Latency => (row.t_typical_usec, row.p99_usec),
    };
    let rows = &result.run.rows;
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|row| Some((row.bytes as f64, pick(row).0?)))
        .collect();
    if points.is_empty() {
        return None;
    }
    let secondary = rows
        .iter()
        .filter_map(|row| Some((row.bytes as f64, pick(row).1?)))
        .collect();
    let header = result.run.header;
    let device = header
        .device
        .or_else(|| args.pointer("/options/device")?.as_str().map(str::to_owned))
        .unwrap_or_default();
    let link = match (header.link_type, header.mtu_bytes) {
        (Some(link), Some(mtu)) => format!("{link}, MTU {mtu}"),
        (Some(link), None) => link,
        (None, Some(mtu)) => format!("MTU {mtu}"),
        (None, None) => String::new(),
    };
    Some(Measurement {
        recorded_by: recorded_by.to_owned(),
        line_rate_gbps: line_rate(model, &result.client, &device),
        server: result.server,
        client: result.client,
        device,
        program: result.program,
        command: result.command,
        kind,
        link,
        points,
        secondary,
    })
}

/// The rate of port 1 of `device` on `host` (perftest's default `-i 1`), from the last
/// `ib::wait_active` or `ib::status` result in that host's journal (`rate_gbps`, from
/// `ibstatus`' `rate: 100 Gb/sec (4X EDR)`).
fn line_rate(model: &RunModel, host: &str, device: &str) -> Option<f64> {
    let host = model.host(host)?;
    let mut rate = None;
    for action in host.actions.iter().filter(|a| a.ok) {
        let ports: Vec<&Value> = match (action.builtin.as_str(), &action.result) {
            ("ib::wait_active", port @ Value::Object(_)) => vec![port],
            ("ib::status", Value::Array(ports)) => ports.iter().collect(),
            _ => continue,
        };
        for port in ports {
            let same = port.get("device").and_then(Value::as_str) == Some(device)
                && port.get("port").and_then(Value::as_u64) == Some(1);
            if let Some(gbps) = port
                .get("rate_gbps")
                .and_then(Value::as_f64)
                .filter(|_| same)
            {
                rate = Some(gbps);
            }
        }
    }
    rate
}

impl Measurement {
    /// The plot: the measurement with a marker per message size, the secondary series as a
    /// grey line, and the line rate (bandwidth: the rate itself; latency: the time a message
    /// of that size takes on the wire at that rate, the floor no latency goes under).
    pub(crate) fn chart(&self) -> Chart {
        let (y_label, y_scale, main, second) = match self.kind {
            Kind::Bandwidth => ("Gb/s", Scale::Linear, "average", "peak"),
            Kind::Latency => ("µs", Scale::Log10, "typical", "99th percentile"),
        };
        let mut series = vec![Series {
            label: format!("{} {main}", self.program),
            color: BLUE,
            points: self.points.clone(),
            markers: true,
            dashed: false,
        }];
        if !self.secondary.is_empty() {
            series.push(Series {
                label: second.into(),
                color: GREY,
                points: self.secondary.clone(),
                markers: false,
                dashed: false,
            });
        }
        if let Some(rate) = self.line_rate_gbps.filter(|rate| *rate > 0.0) {
            let (first, last) = (self.points[0].0, self.points[self.points.len() - 1].0);
            let points = match self.kind {
                Kind::Bandwidth => vec![(first, rate), (last, rate)],
                // bytes × 8 bits / (rate × 10⁹ bit/s), in µs.
                // Drawn only where it is within reach of the measurement (the large messages),
                // so the small sizes' sub-nanosecond wire times do not squash the plot.
                Kind::Latency => {
                    let lowest = self
                        .points
                        .iter()
                        .map(|(_, us)| *us)
                        .fold(f64::MAX, f64::min);
                    self.points
                        .iter()
                        .map(|(bytes, _)| (*bytes, bytes * 8.0 / (rate * 1000.0)))
                        .filter(|(_, us)| *us >= lowest / 2.0)
                        .collect()
                }
            };
            series.push(Series {
                label: format!("line rate {rate} Gb/s"),
                color: LIMIT,
                points,
                markers: false,
                dashed: true,
            });
        }
        Chart {
            title: format!(
                "{} → {} {} ({})",
                self.client, self.server, self.device, self.link
            ),
            x: ("message size (bytes)".into(), Scale::Log2Bytes),
            y: (y_label.into(), y_scale),
            series,
        }
    }
}

/// The section: a plot per measurement.
pub(crate) struct PerftestSection;

impl Section for PerftestSection {
    fn id(&self) -> &'static str {
        "perftest"
    }

    fn title(&self) -> &'static str {
        "perftest: bandwidth and latency against message size"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let (found, unread) = measurements(model);
        if found.is_empty() && unread.is_empty() {
            return Ok(None);
        }
        let mut html = unread.html();
        html.push_str("<div class=\"plots\">");
        for m in &found {
            let kind = match m.kind {
                Kind::Bandwidth => "perftest-bw",
                Kind::Latency => "perftest-lat",
            };
            let rate = m.line_rate_gbps.map_or_else(
                || "line rate unknown".to_owned(),
                |r| format!("line rate {r} Gb/s"),
            );
            html.push_str(&format!(
                "<figure class=\"plot\" data-kind=\"{kind}\" data-points=\"{}\" data-client=\"{}\" data-server=\"{}\" data-device=\"{}\">{}<figcaption><code>{}</code> · {} · recorded by {}</figcaption></figure>",
                m.points.len(),
                escape(&m.client),
                escape(&m.server),
                escape(&m.device),
                m.chart().svg()?,
                escape(&m.command),
                escape(&rate),
                escape(&m.recorded_by),
            ));
        }
        html.push_str("</div>");
        Ok(Some(html))
    }
}
