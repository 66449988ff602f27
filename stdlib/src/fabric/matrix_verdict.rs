//! The closing record of a `fabric::all_pairs` call (phase `verdict`): what its rounds alone do
//! not say (the tolerance, which pairs were flagged and stayed bad, the suspects). Journaled as
//! this type and read back as it, by the builtin and by `cairn report`'s heatmap, so a record of
//! another shape is refused or named instead of drawn with defaults.

use serde::{Deserialize, Serialize};

use super::verdict::Suspects;
use crate::action;

/// One matrix's verdict, as `fabric::all_pairs` journals it after its last retest round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixVerdict {
    /// The perftest program (`send_bw`, `send_lat`).
    pub test: String,
    /// `Gb/s` (bandwidth tests) or `us` (latency tests).
    pub unit: String,
    /// The hosts tested, in the call's order.
    pub hosts: Vec<String>,
    /// The hosts asked for that were not tested, with the reason; none for a passed matrix.
    pub excluded: Vec<Excluded>,
    /// The best value of the matrix; none when no pair measured one.
    #[serde(deserialize_with = "action::present")]
    pub reference: Option<f64>,
    /// The limit derived from the reference.
    #[serde(deserialize_with = "action::present")]
    pub limit: Option<f64>,
    /// The share of the best bandwidth a pair must reach.
    pub min_fraction: f64,
    /// The multiple of the best latency a pair must stay under.
    pub max_latency_factor: f64,
    /// The pairs (server, client) outside the tolerance in the matrix.
    pub flagged: Vec<(String, String)>,
    /// The pairs (server, client) still outside it after their retests.
    pub bad: Vec<(String, String)>,
    /// Who the bad pairs point at.
    pub suspects: Suspects,
    /// The planned time, in seconds.
    pub planned_s: f64,
    /// The time the rounds took on the hosts' clocks, in seconds.
    pub took_s: f64,
    /// No bad pair, at least one tested, and no host left out.
    pub passed: bool,
}

/// A host of the matrix that was not tested, and why (it failed earlier in the run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    /// The host.
    pub host: String,
    /// What failed it (`failed: 1 difference(s) from the manifest`).
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verdict() -> MatrixVerdict {
        let pair = |s: &str, c: &str| (s.to_owned(), c.to_owned());
        MatrixVerdict {
            test: "send_bw".into(),
            unit: "Gb/s".into(),
            hosts: vec!["n1".into(), "n2".into(), "n3".into()],
            excluded: vec![Excluded {
                host: "n4".into(),
                reason: "failed: 1 difference(s) from the manifest".into(),
            }],
            reference: Some(196.5),
            limit: None,
            min_fraction: 0.93,
            max_latency_factor: 2.1,
            flagged: vec![pair("n1", "n3"), pair("n2", "n3")],
            bad: vec![pair("n2", "n3")],
            suspects: Suspects {
                uplinks: vec!["leaf1".into()],
                hosts: vec!["n3".into()],
                pairs: vec![pair("n1", "n2")],
            },
            planned_s: 7.5,
            took_s: 8.0,
            passed: false,
        }
    }

    /// The record as `fabric::all_pairs` wrote it by hand before it had a type: the journal's
    /// bytes stay the same, so old journals replay and old reports read.
    #[test]
    fn the_verdict_journals_the_bytes_the_hand_built_record_had_and_reads_back() {
        let v = verdict();
        let names = v.hosts.clone();
        let (flagged, bad) = (v.flagged.clone(), v.bad.clone());
        let (reference, limit) = (v.reference, v.limit);
        let old = json!({
            "test": "send_bw", "unit": "Gb/s",
            "hosts": names, "excluded": [{ "host": "n4", "reason": "failed: 1 difference(s) from the manifest" }],
            "reference": reference, "limit": limit,
            "min_fraction": 0.93, "max_latency_factor": 2.1,
            "flagged": flagged, "bad": bad,
            "suspects": { "uplinks": ["leaf1"], "hosts": ["n3"], "pairs": [["n1", "n2"]] },
            "planned_s": 7.5, "took_s": 8.0, "passed": false,
        });
        assert_eq!(action::json(&v).to_string(), old.to_string());
        let back: MatrixVerdict = serde_json::from_value(old).expect("reads back");
        assert_eq!(back, v);
    }

    #[test]
    fn a_verdict_missing_a_field_or_with_a_null_list_does_not_read() {
        let whole = action::json(&verdict());
        for (field, value) in [("limit", None), ("bad", Some(json!(null)))] {
            let mut shaped = whole.clone();
            match (shaped.as_object_mut(), value) {
                (Some(map), None) => drop(map.remove(field)),
                (Some(map), Some(value)) => drop(map.insert(field.into(), value)),
                (None, _) => panic!("a verdict is a map"),
            }
            let read = serde_json::from_value::<MatrixVerdict>(shaped);
            let error = read.expect_err("refused").to_string();
            assert!(
                error.contains(field) || error.contains("null"),
                "{field}: {error}"
            );
        }
    }
}
