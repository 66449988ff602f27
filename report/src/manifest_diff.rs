//! `fabric::manifest_diff`'s findings: per host, each difference from its class of the
//! expected-hardware manifest, one line as the issue words it (`compute-042: mlx5_1 rate 50 Gb/s
//! (2X HDR), expected 100 (4X EDR)`), and the hosts that matched, counted per class.
//!
//! Read from each host's last `fabric::manifest_diff` result (`#{host, class, ok,
//! differences: [#{device, field, found, expected, message}]}`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Deserialize;

use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;

#[derive(Debug, Clone, Deserialize)]
struct Checked {
    class: String,
    #[serde(default)]
    differences: Vec<Difference>,
}

#[derive(Debug, Clone, Deserialize)]
struct Difference {
    device: Option<String>,
    field: String,
    found: String,
    expected: String,
    message: String,
}

/// One host's last check.
struct HostCheck {
    host: String,
    class: String,
    path: String,
    differences: Vec<Difference>,
}

fn checks(model: &RunModel) -> Vec<HostCheck> {
    let mut found = Vec::new();
    for host in &model.hosts {
        let last = host
            .actions
            .iter()
            .filter(|a| a.ok && a.builtin == "fabric::manifest_diff")
            .filter_map(|a| {
                let checked: Checked = serde_json::from_value(a.result.clone()).ok()?;
                let path = a
                    .args
                    .get("path")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                Some((checked, path))
            })
            .next_back();
        if let Some((checked, path)) = last {
            found.push(HostCheck {
                host: host.name.clone(),
                class: checked.class,
                path,
                differences: checked.differences,
            });
        }
    }
    found
}

/// The section: a table of the differences, and the matching hosts per class.
pub(crate) struct ManifestSection;

impl Section for ManifestSection {
    fn id(&self) -> &'static str {
        "manifest"
    }

    fn title(&self) -> &'static str {
        "fabric: expected hardware"
    }

    fn render(&self, model: &RunModel) -> Result<Option<String>, ReportError> {
        let found = checks(model);
        if found.is_empty() {
            return Ok(None);
        }
        // (manifest, class) -> (checked, matching).
        let mut classes: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
        for check in &found {
            let entry = classes
                .entry((check.path.clone(), check.class.clone()))
                .or_default();
            entry.0 += 1;
            entry.1 += usize::from(check.differences.is_empty());
        }
        let mut html = String::from("<ul class=\"manifest-classes\">");
        for ((path, class), (checked, matching)) in &classes {
            let _ = write!(
                html,
                "<li>class <code>{}</code> of <code>{}</code>: {matching} of {checked} host(s) match</li>",
                escape(class),
                escape(path)
            );
        }
        html.push_str("</ul>");
        let differing: Vec<&HostCheck> =
            found.iter().filter(|c| !c.differences.is_empty()).collect();
        if differing.is_empty() {
            html.push_str("<p>Every host matches its class.</p>");
            return Ok(Some(html));
        }
        html.push_str("<table class=\"manifest\"><tr><th>host</th><th>class</th><th>device</th><th>field</th><th>found</th><th>expected</th><th>difference</th></tr>");
        for check in differing {
            for d in &check.differences {
                let _ = write!(
                    html,
                    "<tr class=\"difference\" data-host=\"{}\" data-field=\"{}\"><td class=\"failed\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"differs\">{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&check.host),
                    escape(&d.field),
                    escape(&check.host),
                    escape(&check.class),
                    escape(d.device.as_deref().unwrap_or("")),
                    escape(&d.field),
                    escape(&d.found),
                    escape(&d.expected),
                    escape(&d.message),
                );
            }
        }
        html.push_str("</table>");
        Ok(Some(html))
    }
}
