//! The fabric as ibdiagnet saw it (`ib::ibdiagnet`): per scan, the switches, adapters, cables
//! and master subnet managers, then every finding (cabling against the design, a second
//! master, a narrow or slow cable, a counter over its threshold) naming its node and port.

use cairn_stdlib::ib::ibdiagnet::Verdict;

use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::Unread;

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
        let mut unread = Unread::of("ibdiagnet");
        for host in &model.hosts {
            // Check mode scans nothing: its result is `null`.
            for action in host
                .results("ib::ibdiagnet")
                .filter(|a| !a.result.is_null())
            {
                let Some(scan) = unread.read_whole::<Verdict>(&host.name, action) else {
                    continue;
                };
                // A scan the controller ran on a node is that node's view of the fabric.
                let scanned_on = scan.from.as_str();
                let masters: Vec<String> = scan
                    .checked
                    .masters
                    .iter()
                    .map(|m| format!("{} {}", m.node, m.guid))
                    .collect();
                html.push_str(&format!(
                    "<p data-kind=\"ibdiagnet\" data-host=\"{}\" data-findings=\"{}\">From <code>{}</code>: {} switches, {} adapters, {} cables; master subnet manager{}: {}. <span class=\"{}\">{}</span></p>",
                    escape(scanned_on),
                    scan.checked.findings.len(),
                    escape(scanned_on),
                    scan.checked.switches,
                    scan.checked.channel_adapters,
                    scan.checked.links,
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
                        format!("{} finding(s).", scan.checked.findings.len())
                    },
                ));
                if scan.checked.findings.is_empty() {
                    continue;
                }
                html.push_str("<table class=\"ibdiagnet\"><tr><th>check</th><th>node</th><th>port</th><th>finding</th></tr>");
                for f in &scan.checked.findings {
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
        let html = format!("{}{html}", unread.html());
        Ok((!html.is_empty()).then_some(html))
    }
}

#[cfg(test)]
mod tests {
    use cairn_runtime::RunFolders;
    use cairn_stdlib::ib::ibdiagnet::{Checked, Manager, Verdict};
    use serde_json::json;

    use crate::run_model::RunModel;
    use crate::section::Section;
    use crate::test_journals::{Act, new_run, write_journal};

    fn verdict(from: &str) -> serde_json::Value {
        let master = Manager {
            node: "ib-spine01".into(),
            description: "MF0;ib-spine01:MQM8700/U1".into(),
            guid: "0x98039b0300a1b2c3".into(),
            port: 1,
            state: "master".into(),
            priority: 15,
        };
        let verdict = Verdict {
            ok: true,
            checked: Checked {
                findings: Vec::new(),
                subnet_managers: vec![master.clone()],
                masters: vec![master],
                switches: 1,
                channel_adapters: 2,
                links: 2,
            },
            db_csv: "/var/tmp/ibdiagnet2/ibdiagnet2.db_csv".into(),
            from: from.into(),
        };
        serde_json::to_value(verdict).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Two scans, one journaled with `masters` renamed `master`: the section shows the scan it
    /// could read and names the one it could not; check mode's `null` is neither.
    #[test]
    fn a_scan_of_another_shape_is_named_not_skipped() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = RunFolders::new(dir.path());
        let hosts = vec!["n1".to_owned()];
        let id = new_run(&store, &hosts);
        let mut renamed = verdict("n1");
        let masters = renamed["masters"].take();
        renamed["master"] = masters;
        if let Some(map) = renamed.as_object_mut() {
            map.remove("masters");
        }
        let actions = [
            Act::query("ib::ibdiagnet", json!({}), verdict("n1")),
            Act::query("ib::ibdiagnet", json!({}), renamed),
            Act::query("ib::ibdiagnet", json!({}), serde_json::Value::Null),
        ];
        write_journal(&store, &id, ("n1", &hosts), "all", 37, &actions);
        let model = RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"));

        let html = super::IbdiagnetSection
            .render(&model)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_default();
        assert_eq!(html.matches("data-kind=\"ibdiagnet\"").count(), 1, "{html}");
        assert!(html.contains("ib-spine01 0x98039b0300a1b2c3"), "{html}");
        assert!(
            html.contains("1 result of ibdiagnet could not be read: missing field `masters`"),
            "{html}"
        );
    }
}
