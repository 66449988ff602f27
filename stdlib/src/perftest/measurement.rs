//! A perftest builtin's result as its type: what `perftest::send_bw` and the others journal
//! and read back (a replayed record of another shape is refused naming it, never read as an
//! empty result), and `perftest::matrix`'s entries.

use serde::{Deserialize, Deserializer, Serialize};

use super::{PairedRun, PerftestRun};
use crate::action;

/// One test between a pair: the client's run with the pair, its summary, the table as printed
/// and the server's parsed output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Measurement {
    #[serde(flatten)]
    pub(crate) paired: PairedRun,
    #[serde(flatten)]
    pub(crate) summary: Summary,
    /// The results table as printed: the titles line and the rows.
    pub(crate) table: String,
    /// The server's parsed output, `null` if it printed nothing readable.
    #[serde(deserialize_with = "action::present")]
    pub(crate) server_side: Option<PerftestRun>,
}

/// The figures a script compares: a latency test's at the smallest message size, a bandwidth
/// test's at the largest. Each field is there (`null` when perftest did not print it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Summary {
    Latency {
        #[serde(deserialize_with = "action::present")]
        typical_us: Option<f64>,
        #[serde(deserialize_with = "action::present")]
        avg_us: Option<f64>,
        #[serde(deserialize_with = "action::present")]
        p99_us: Option<f64>,
    },
    Bandwidth {
        #[serde(deserialize_with = "action::present")]
        peak_gbps: Option<f64>,
        #[serde(deserialize_with = "action::present")]
        avg_gbps: Option<f64>,
        #[serde(deserialize_with = "action::present")]
        msg_rate_mpps: Option<f64>,
    },
}

impl Summary {
    /// The average bandwidth, for a bandwidth test.
    pub(crate) fn avg_gbps(&self) -> Option<f64> {
        match self {
            Summary::Bandwidth { avg_gbps, .. } => *avg_gbps,
            Summary::Latency { .. } => None,
        }
    }

    /// The typical latency, for a latency test.
    pub(crate) fn typical_us(&self) -> Option<f64> {
        match self {
            Summary::Latency { typical_us, .. } => *typical_us,
            Summary::Bandwidth { .. } => None,
        }
    }
}

/// What a pair builtin gives a script: the measurement, or in check mode (a test loads the
/// fabric, so it is not run) `#{checked: true}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum PairOutcome {
    Measured(Box<Measurement>),
    Checked(Checked),
}

/// Check mode's answer: nothing was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Checked {
    pub(crate) checked: bool,
}

/// Read back by `checked`, so a record of another shape fails with the field that is wrong
/// (an untagged enum would only say that no variant matched).
impl<'de> Deserialize<'de> for PairOutcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let read = if value["checked"] == true {
            serde_json::from_value(value).map(PairOutcome::Checked)
        } else {
            serde_json::from_value(value).map(PairOutcome::Measured)
        };
        read.map_err(serde::de::Error::custom)
    }
}

/// One pair of `perftest::matrix`: its measurement, or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct MatrixEntry {
    pub(crate) server: String,
    pub(crate) client: String,
    pub(crate) ok: bool,
    #[serde(deserialize_with = "action::present")]
    pub(crate) error: Option<String>,
    #[serde(deserialize_with = "action::present")]
    pub(crate) result: Option<Measurement>,
}

impl MatrixEntry {
    /// The entry of a pair's outcome.
    pub(crate) fn of(
        server: &str,
        client: &str,
        measured: Result<Measurement, cairn_runtime::ActionError>,
    ) -> Self {
        let (ok, error, result) = match measured {
            Ok(m) => (true, None, Some(m)),
            Err(e) => (false, Some(e.to_string()), None),
        };
        Self {
            server: server.to_owned(),
            client: client.to_owned(),
            ok,
            error,
            result,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::TestHost;
    use crate::test_support::{journal_of, shape_error};

    const EDR: &str = "ofed=5.4-3.0.3.0&rate=100&ports=ib";

    /// The keys the hand-built JSON had before the result was typed: the client's parsed run,
    /// then the summary, the pair, the program, its command, the table and the server side.
    #[test]
    fn a_measurement_journals_as_before_and_reads_back() {
        let t = TestHost::guests(&[("s1", EDR), ("c1", EDR)], "controller").build();
        t.sleep("s1", 3);
        t.sleep("c1", 3);
        let live = t.eval(r#"perftest::send_bw("s1", "c1")"#);
        let journaled: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        let back: PairOutcome = serde_json::from_value(journaled.clone()).expect("reads back");
        assert_eq!(action::json(&back), journaled);
        let PairOutcome::Measured(measured) = back else {
            panic!("not measured: {journaled}");
        };
        let mut keys: Vec<String> = action::json(&measured.paired.run)
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        for key in [
            "peak_gbps",
            "avg_gbps",
            "msg_rate_mpps",
            "server",
            "client",
            "program",
            "command",
            "table",
            "server_side",
        ] {
            keys.push(key.to_owned());
        }
        keys.sort();
        let mut have: Vec<String> = journaled
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        have.sort();
        assert_eq!(have, keys);
        assert!(measured.summary.avg_gbps().is_some(), "{journaled}");
    }

    #[test]
    fn a_replayed_measurement_of_another_shape_is_refused_naming_the_record() {
        let guests = [("s1", EDR), ("c1", EDR)];
        let options = super::super::command::TestOptions::from_json(&json!({})).expect("defaults");
        let args = json!({ "server": "s1", "client": "c1", "options": options });
        let t = TestHost::guests(&guests, "controller").build();
        t.sleep("s1", 3);
        t.sleep("c1", 3);
        let live = t.eval(r#"perftest::send_bw("s1", "c1")"#);
        let mut result: serde_json::Value = rhai::serde::from_dynamic(&live).expect("json");
        let avg = result["avg_gbps"].take();
        result["average_gbps"] = avg;
        if let Some(map) = result.as_object_mut() {
            map.remove("avg_gbps");
        }
        let t = TestHost::guests(&guests, "controller")
            .replaying(journal_of("perftest::send_bw", args, result))
            .build();
        let error = t.error(r#"perftest::send_bw("s1", "c1")"#);
        let expected = shape_error("perftest::send_bw", "a perftest measurement");
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("(journal test.jsonl line 3)"), "{error}");
    }
}
