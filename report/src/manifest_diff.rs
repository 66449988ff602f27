//! `fabric::manifest_diff`'s findings: per host, each difference from its class of the
//! expected-hardware manifest, one line as the issue words it (`compute-042: mlx5_1 rate 50 Gb/s
//! (2X HDR), expected 100 (4X EDR)`), and the hosts that matched, counted per class.
//!
//! Read from each host's last `fabric::manifest_diff` result (`#{host, class, ok,
//! differences: [#{device, field, found, expected, message}]}`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cairn_stdlib::fabric::{Difference, ManifestCheck};

use crate::html::escape;
use crate::report_error::ReportError;
use crate::run_model::RunModel;
use crate::section::Section;
use crate::unread::Unread;

/// One host's last check.
struct HostCheck {
    host: String,
    class: String,
    path: String,
    differences: Vec<Difference>,
}

fn checks(model: &RunModel, unread: &mut Unread) -> Vec<HostCheck> {
    let mut found = Vec::new();
    for host in &model.hosts {
        // Check mode checks nothing: its result is `null`.
        let last = host
            .results("fabric::manifest_diff")
            .filter(|a| !a.result.is_null())
            .filter_map(|a| {
                let checked: ManifestCheck = unread.read_whole(&host.name, a)?;
                let path = a
                    .args
                    .get("path")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                Some((checked, path))
            })
            .last();
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
        let mut unread = Unread::of("fabric::manifest_diff");
        let found = checks(model, &mut unread);
        if found.is_empty() {
            return Ok((!unread.is_empty()).then(|| unread.html()));
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
        let mut html = unread.html();
        html.push_str("<ul class=\"manifest-classes\">");
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

#[cfg(test)]
mod tests {
    use cairn_runtime::RunFolders;
    use cairn_stdlib::fabric::{Difference, ManifestCheck};
    use serde_json::json;

    use crate::run_model::RunModel;
    use crate::section::Section;
    use crate::test_journals::{Act, new_run, write_journal};

    /// Two hosts' checks, one journaled with `differences` renamed `diffs`: the section shows
    /// the difference it could read and names the check it could not, instead of counting that
    /// host as matching its class.
    #[test]
    fn a_check_of_another_shape_is_named_not_taken_for_a_match() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = RunFolders::new(dir.path());
        let hosts = vec!["c041".to_owned(), "c042".to_owned()];
        let id = new_run(&store, &hosts);
        let checked = |host: &str| ManifestCheck {
            host: host.into(),
            class: "compute".into(),
            ok: false,
            differences: vec![Difference {
                device: Some("mlx5_1".into()),
                field: "rate".into(),
                found: "50".into(),
                expected: "100".into(),
                message: format!("{host}: mlx5_1 rate 50 Gb/s, expected 100"),
            }],
        };
        let good = serde_json::to_value(checked("c041")).unwrap_or_else(|e| panic!("{e}"));
        let mut renamed = serde_json::to_value(checked("c042")).unwrap_or_else(|e| panic!("{e}"));
        let differences = renamed["differences"].take();
        renamed["diffs"] = differences;
        if let Some(map) = renamed.as_object_mut() {
            map.remove("differences");
        }
        let args = json!({ "path": "manifest.toml", "class": "compute" });
        for (host, result) in [("c041", good), ("c042", renamed)] {
            let actions = [Act::query("fabric::manifest_diff", args.clone(), result)];
            write_journal(&store, &id, (host, &hosts), "compute", 37, &actions);
        }
        let model = RunModel::load(&store, Some(&id)).unwrap_or_else(|e| panic!("{e}"));

        let html = super::ManifestSection
            .render(&model)
            .unwrap_or_else(|e| panic!("{e}"))
            .unwrap_or_default();
        assert!(html.contains("0 of 1 host(s) match"), "{html}");
        assert!(html.contains("c041: mlx5_1 rate 50 Gb/s"), "{html}");
        assert!(
            html.contains(
                "1 result of fabric::manifest_diff could not be read: missing field `differences` (c042 action 1"
            ),
            "{html}"
        );
    }
}
