//! The fabric's findings in the verdict's one line, the way a site lead reads it first:
//! `FAIL: 1 link at 1X (node042 port 1 to ib-leaf02 port 42), 1 manifest difference (node042)`.
//!
//! Read from each scanning host's last `ib::ibdiagnet` result (its findings' `check`, `link`
//! and `found`) and each host's last `fabric::manifest_diff` (its `differences`). The sections
//! below the verdict show each finding whole; this line only counts and names them.

use std::collections::BTreeMap;

use cairn_stdlib::fabric::ManifestCheck;
use cairn_stdlib::ib::ibdiagnet::Verdict;

use crate::fold::hosts;
use crate::run_model::RunModel;

/// How many links a clause names before it says how many more.
const NAMED: usize = 3;

/// The clauses of the line, ibdiagnet's first (by check, then what was found), then the
/// manifest's; empty when the fabric had nothing to say.
pub(crate) fn clauses(model: &RunModel) -> Vec<String> {
    let mut clauses = ibdiagnet_clauses(model);
    clauses.extend(manifest_clause(model));
    clauses
}

fn ibdiagnet_clauses(model: &RunModel) -> Vec<String> {
    // (check, found) -> the links (or nodes) blamed, in the order found.
    let mut groups: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for host in &model.hosts {
        let Some(scan) = host.results("ib::ibdiagnet").last() else {
            continue;
        };
        let Ok(scan) = serde_json::from_value::<Verdict>(scan.result.clone()) else {
            // The ibdiagnet section names a result it cannot read; the line only counts.
            continue;
        };
        for finding in scan.checked.findings {
            let blamed = finding.link.filter(|l| !l.is_empty()).unwrap_or_else(|| {
                match finding.node.as_str() {
                    "" => finding.message.clone(),
                    node => node.to_owned(),
                }
            });
            let key = (finding.check, finding.found.unwrap_or_default());
            let blamed_list = groups.entry(key).or_default();
            if !blamed_list.contains(&blamed) {
                blamed_list.push(blamed);
            }
        }
    }
    groups
        .into_iter()
        .map(|((check, found), blamed)| clause(&check, &found, &blamed))
        .collect()
}

/// `1 link at 1X (a to b)`, `2 cabling differences (...)`, `1 port over its counter
/// thresholds (...)`, `subnet manager: ...`.
fn clause(check: &str, found: &str, blamed: &[String]) -> String {
    let n = blamed.len();
    let plural = |one: &str, many: &str| if n == 1 { one } else { many }.to_owned();
    let what = match check {
        "width" | "speed" if !found.is_empty() => format!("{} at {found}", plural("link", "links")),
        "width" => plural("link too narrow", "links too narrow"),
        "speed" => plural("link too slow", "links too slow"),
        "topology" => plural("cabling difference", "cabling differences"),
        "counter" => plural(
            "port over its counter thresholds",
            "ports over their counter thresholds",
        ),
        "subnet_manager" => return format!("subnet manager: {}", named(blamed)),
        other => format!("{} {other}", plural("finding of", "findings of")),
    };
    format!("{n} {what} ({})", named(blamed))
}

fn named(blamed: &[String]) -> String {
    let shown = blamed[..blamed.len().min(NAMED)].join(", ");
    match blamed.len().saturating_sub(NAMED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// `1 manifest difference (node042)`, counted over every host's last check.
fn manifest_clause(model: &RunModel) -> Option<String> {
    let mut count = 0;
    let mut differing = Vec::new();
    for host in &model.hosts {
        let Some(last) = host.results("fabric::manifest_diff").last() else {
            continue;
        };
        let Ok(checked) = serde_json::from_value::<ManifestCheck>(last.result.clone()) else {
            continue;
        };
        if !checked.differences.is_empty() {
            count += checked.differences.len();
            differing.push(host.name.as_str());
        }
    }
    (count > 0).then(|| {
        let noun = if count == 1 {
            "difference"
        } else {
            "differences"
        };
        format!("{count} manifest {noun} ({})", hosts(&differing))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blamed(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn a_link_found_narrow_is_counted_and_named_by_its_cable() {
        assert_eq!(
            clause(
                "width",
                "1X",
                &blamed(&["node042 port 1 to ib-leaf02 port 42"])
            ),
            "1 link at 1X (node042 port 1 to ib-leaf02 port 42)"
        );
    }

    #[test]
    fn past_three_links_the_clause_says_how_many_more() {
        let links = blamed(&["a to b", "c to d", "e to f", "g to h", "i to j"]);
        assert_eq!(
            clause("speed", "SDR", &links),
            "5 links at SDR (a to b, c to d, e to f and 2 more)"
        );
        assert_eq!(
            clause("counter", "", &links[..1]),
            "1 port over its counter thresholds (a to b)"
        );
    }
}
