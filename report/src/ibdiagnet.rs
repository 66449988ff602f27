//! The fabric as ibdiagnet saw it (`ib::ibdiagnet`): per scan, the switches, adapters, cables
//! and master subnet managers, then every finding (cabling against the design, a second
//! master, a narrow or slow cable, a counter over its threshold) naming its node and port.

use serde::Deserialize;

use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

/// The fields of `ib::ibdiagnet`'s result used here (stdlib `ib::ibdiagnet::run`).
#[derive(Debug, Clone, Deserialize)]
struct Scan {
    /// The host the scan ran on, when the controller ran it there (`from:`).
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    ok: bool,
    #[serde(default)]
    switches: u64,
    #[serde(default)]
    channel_adapters: u64,
    #[serde(default)]
    links: u64,
    #[serde(default)]
    masters: Vec<Manager>,
    #[serde(default)]
    findings: Vec<Finding>,
}

#[derive(Debug, Clone, Deserialize)]
struct Manager {
    #[serde(default)]
    node: String,
    #[serde(default)]
    guid: String,
}

#[derive(Debug, Clone, Deserialize)]
struct Finding {
    #[serde(default)]
    check: String,
    #[serde(default)]
    node: String,
    port: Option<u64>,
    #[serde(default)]
    message: String,
}

/// The `ibdiagnet` section.
pub(crate) struct IbdiagnetSection;

impl Section for IbdiagnetSection {
    fn id(&self) -> &'static str {
        "ibdiagnet"
    }

    fn title(&self) -> &'static str {
        "ibdiagnet: the fabric"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let mut html = String::new();
        for host in &model.hosts {
            for action in host.results("ib::ibdiagnet") {
                let Ok(scan) = serde_json::from_value::<Scan>(action.result.clone()) else {
                    continue;
                };
                // A scan the controller ran on a node is that node's view of the fabric.
                let scanned_on = scan.from.as_deref().unwrap_or(&host.name);
                let masters: Vec<String> = scan
                    .masters
                    .iter()
                    .map(|m| format!("{} {}", m.node, m.guid))
                    .collect();
                html.push_str(&format!(
                    "<p data-kind=\"ibdiagnet\" data-host=\"{}\" data-findings=\"{}\">From <code>{}</code>: {} switches, {} adapters, {} cables; master subnet manager{}: {}. <span class=\"{}\">{}</span></p>",
                    escape(scanned_on),
                    scan.findings.len(),
                    escape(scanned_on),
                    scan.switches,
                    scan.channel_adapters,
                    scan.links,
                    if masters.len() == 1 { "" } else { "s" },
                    if masters.is_empty() {
                        "none".to_owned()
                    } else {
                        escape(&masters.join(", "))
                    },
                    if scan.ok { "" } else { "failed" },
                    if scan.ok {
                        "No findings.".to_owned()
                    } else {
                        format!("{} finding(s).", scan.findings.len())
                    },
                ));
                if scan.findings.is_empty() {
                    continue;
                }
                html.push_str("<table class=\"ibdiagnet\"><tr><th>check</th><th>node</th><th>port</th><th>finding</th></tr>");
                for f in &scan.findings {
                    html.push_str(&format!(
                        "<tr><td>{}</td><td class=\"failed\">{}</td><td>{}</td><td>{}</td></tr>",
                        escape(&f.check),
                        escape(&f.node),
                        f.port.map(|p| p.to_string()).unwrap_or_default(),
                        escape(&f.message)
                    ));
                }
                html.push_str("</table>");
            }
        }
        Ok((!html.is_empty()).then_some(html))
    }
}
