//! `fabric::all_pairs(hosts, #{...})`'s options, declared once for the builtin and `cairn check`.

use cairn_runtime::{BuiltinOptions, OptionType};
use serde_json::Value;

use crate::action::key;
use crate::perftest::command::{TOOLS, TestOptions};

/// The keys: the matrix's own, then those of one perftest.
pub(crate) const ALL_PAIRS_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "fabric::all_pairs",
    arg: 1,
    keys: &[
        key("all_sizes", OptionType::Bool),
        key("device", OptionType::Text),
        key("gid_index", OptionType::Int),
        key("iterations", OptionType::Int),
        key("max_latency_factor", OptionType::Any),
        key("min_fraction", OptionType::Any),
        key("port", OptionType::Int),
        key("qps", OptionType::Int),
        key("quick", OptionType::Bool),
        key("retest", OptionType::Bool),
        key("size", OptionType::Int),
        key("test", OptionType::Text),
    ],
};

/// The options, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct AllPairsOptions {
    /// The perftest builtin name (`send_bw`).
    pub(crate) test: String,
    /// Its program (`ib_send_bw`).
    pub(crate) program: &'static str,
    /// One round of n/2 pairs instead of n−1 (ClusterKit's `--quick`).
    pub(crate) quick: bool,
    /// Retest flagged pairs in halving rounds (ClusterKit's `-x` turns it off).
    pub(crate) retest: bool,
    pub(crate) min_fraction: f64,
    pub(crate) max_latency_factor: f64,
    pub(crate) perftest: TestOptions,
}

impl AllPairsOptions {
    /// Reads the map; a value out of range or an unknown test is an error in words.
    pub(crate) fn from_json(options: &Value) -> Result<Self, String> {
        let mut rest = options.clone();
        let Some(map) = rest.as_object_mut() else {
            return Err("the options must be a map".into());
        };
        let test = match map.remove("test") {
            None => "send_bw".to_owned(),
            Some(Value::String(t)) => t,
            Some(other) => return Err(format!("`test` must be a string, not {other}")),
        };
        let Some(program) = TOOLS.iter().find(|(t, _)| *t == test).map(|(_, p)| *p) else {
            let names: Vec<&str> = TOOLS.iter().map(|(t, _)| *t).collect();
            let hint = cairn_runtime::inventory::closest(&test, names.iter().copied())
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            return Err(format!(
                "no perftest `{test}`{hint} (one of {})",
                names.join(", ")
            ));
        };
        let flag = |v: Option<Value>, default: bool| v.and_then(|v| v.as_bool()).unwrap_or(default);
        let quick = flag(map.remove("quick"), false);
        let retest = flag(map.remove("retest"), true);
        let fraction = number(map.remove("min_fraction"), "min_fraction", 0.93)?;
        if !(fraction > 0.0 && fraction <= 1.0) {
            return Err(format!("`min_fraction` {fraction} is not in (0, 1]"));
        }
        let factor = number(map.remove("max_latency_factor"), "max_latency_factor", 2.1)?;
        if !(factor >= 1.0 && factor.is_finite()) {
            return Err(format!("`max_latency_factor` {factor} is under 1"));
        }
        let perftest = TestOptions::from_json(&rest)?;
        Ok(Self {
            test,
            program,
            quick,
            retest,
            min_fraction: fraction,
            max_latency_factor: factor,
            perftest,
        })
    }

    /// Whether the test measures latency.
    pub(crate) fn latency(&self) -> bool {
        self.test.ends_with("_lat")
    }
}

/// A number option (an integer is taken as a float).
fn number(value: Option<Value>, key: &str, default: f64) -> Result<f64, String> {
    match value {
        None => Ok(default),
        Some(v) => v
            .as_f64()
            .ok_or_else(|| format!("`{key}` must be a number, not {v}")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defaults_ranges_and_unknown_tests() {
        let o = AllPairsOptions::from_json(&json!({})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (o.program, o.min_fraction, o.max_latency_factor),
            ("ib_send_bw", 0.93, 2.1)
        );
        assert!(o.retest && !o.quick && !o.latency());
        let e = AllPairsOptions::from_json(&json!({ "test": "sned_lat" })).err();
        assert_eq!(
            e.as_deref().map(|e| e.contains("did you mean `send_lat`?")),
            Some(true),
            "{e:?}"
        );
        assert!(AllPairsOptions::from_json(&json!({ "min_fraction": 1.5 })).is_err());
        assert!(AllPairsOptions::from_json(&json!({ "max_latency_factor": "x" })).is_err());
        assert!(AllPairsOptions::from_json(&json!({ "size": -1 })).is_err());
    }
}
