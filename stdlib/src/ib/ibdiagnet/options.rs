//! `ib::ibdiagnet(#{...})`'s options, declared once for the builtin and `cairn check`, and read
//! into what the checks expect. A key, a width, a speed or a counter name that is not known is
//! refused with the nearest known one.

use std::collections::BTreeMap;

use cairn_runtime::{BuiltinOptions, OptionType};
use serde_json::Value;

use super::types::{SPEEDS, width_lanes};
use crate::action::key;

/// The keys.
pub(crate) const IBDIAGNET_OPTIONS: BuiltinOptions = BuiltinOptions {
    builtin: "ib::ibdiagnet",
    arg: 0,
    keys: &[
        key("device", OptionType::Text),
        key("from", OptionType::Text),
        key("output", OptionType::Text),
        key("speed", OptionType::Text),
        key("thresholds", OptionType::Any),
        key("topology", OptionType::Text),
        key("width", OptionType::Text),
    ],
};

/// Where ibdiagnet writes its files when not told (`-o`).
pub(crate) const DEFAULT_OUTPUT: &str = "/var/tmp/ibdiagnet2";

/// The error counters of the PortCounters attribute (and their extended forms), the names the
/// `START_PM_INFO` header uses; a threshold names one of them.
pub(crate) const COUNTERS: &[&str] = &[
    "ExcessiveBufferOverrunErrors",
    "LinkDownedCounter",
    "LinkDownedCounterExt",
    "LinkErrorRecoveryCounter",
    "LinkErrorRecoveryCounterExt",
    "LocalLinkIntegrityErrors",
    "PortRcvConstraintErrors",
    "PortRcvErrors",
    "PortRcvErrorsExt",
    "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors",
    "PortXmitConstraintErrors",
    "PortXmitDiscards",
    "PortXmitDiscardsExt",
    "PortXmitWait",
    "PortXmitWaitExt",
    "SymbolErrorCounter",
    "VL15Dropped",
];

/// The thresholds without a `thresholds` option: no error on any cable.
pub(crate) const DEFAULT_THRESHOLDS: &[(&str, u64)] = &[
    ("LinkDownedCounter", 0),
    ("PortRcvErrors", 0),
    ("SymbolErrorCounter", 0),
];

/// The options, checked.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(crate) struct IbdiagnetOptions {
    pub(crate) device: Option<String>,
    pub(crate) output: String,
    pub(crate) width: Option<String>,
    pub(crate) speed: Option<String>,
    pub(crate) thresholds: BTreeMap<String, u64>,
    pub(crate) topology: Option<String>,
    /// The host ibdiagnet runs on, reached from the calling host (a controller): the scan's
    /// findings are then the caller's, not the scanning host's. Left out of the journal's
    /// arguments when not given, so journals from before it replay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
}

fn hint(word: &str, names: &[&str]) -> String {
    cairn_runtime::inventory::closest(word, names.iter().copied())
        .map(|n| format!("did you mean `{n}`? "))
        .unwrap_or_default()
}

impl IbdiagnetOptions {
    /// Reads the map (its keys and types already checked against [`IBDIAGNET_OPTIONS`]).
    pub(crate) fn from_json(options: &Value) -> Result<Self, String> {
        let text = |k: &str| options.get(k).and_then(Value::as_str).map(str::to_owned);
        let width = match text("width") {
            None => None,
            Some(w) => {
                let lanes = width_lanes(&w).ok_or_else(|| {
                    format!("`width` {w:?} is not a link width (1X, 2X, 4X, 8X or 12X)")
                })?;
                Some(format!("{lanes}X"))
            }
        };
        let speed = match text("speed") {
            None => None,
            Some(s) => {
                let upper = s.to_ascii_uppercase();
                if !SPEEDS.contains(&upper.as_str()) {
                    return Err(format!(
                        "`speed` {s:?} is not a link speed; {}one of {}",
                        hint(&upper, SPEEDS),
                        SPEEDS.join(", ")
                    ));
                }
                Some(upper)
            }
        };
        let mut thresholds: BTreeMap<String, u64> = DEFAULT_THRESHOLDS
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect();
        match options.get("thresholds") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (name, value) in map {
                    if !COUNTERS.contains(&name.as_str()) {
                        return Err(format!(
                            "`thresholds` has no counter `{name}`; {}counters: {}",
                            hint(name, COUNTERS),
                            COUNTERS.join(", ")
                        ));
                    }
                    let limit = value.as_u64().ok_or_else(|| {
                        format!(
                            "`thresholds.{name}` must be a whole number of 0 or more, not {value}"
                        )
                    })?;
                    thresholds.insert(name.clone(), limit);
                }
            }
            Some(other) => {
                return Err(format!(
                    "`thresholds` must be a map of counter to limit (#{{ SymbolErrorCounter: 0 }}), not {other}"
                ));
            }
        }
        let output = text("output").unwrap_or_else(|| DEFAULT_OUTPUT.to_owned());
        if !output.starts_with('/') || output.contains(char::is_whitespace) {
            return Err(format!(
                "`output` {output:?} must be an absolute directory path"
            ));
        }
        let device = text("device");
        if let Some(d) = &device
            && !crate::action::valid_device(d)
        {
            return Err(format!(
                "`device` {d:?} is not an RDMA device name (mlx5_0)"
            ));
        }
        Ok(Self {
            device,
            output,
            width,
            speed,
            thresholds,
            topology: text("topology"),
            from: text("from"),
        })
    }

    /// `ibdiagnet -o DIR [-i DEV] [--lw 4x] [--ls 25]`.
    pub(crate) fn argv(&self) -> Vec<String> {
        let mut argv = vec!["ibdiagnet".to_owned(), "-o".to_owned(), self.output.clone()];
        if let Some(d) = &self.device {
            argv.extend(["-i".to_owned(), d.clone()]);
        }
        if let Some(w) = &self.width {
            argv.extend(["--lw".to_owned(), w.to_ascii_lowercase()]);
        }
        if let Some(gbps) = self
            .speed
            .as_deref()
            .and_then(super::types::speed_lane_gbps)
        {
            argv.extend(["--ls".to_owned(), gbps.to_owned()]);
        }
        argv
    }

    /// The db_csv file in the output directory.
    pub(crate) fn db_csv(&self) -> String {
        format!("{}/ibdiagnet2.db_csv", self.output.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn widths_speeds_and_counters_are_checked_with_the_nearest_name() {
        let o = IbdiagnetOptions::from_json(&json!({ "width": "4x", "speed": "edr" }))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            o.argv(),
            [
                "ibdiagnet",
                "-o",
                DEFAULT_OUTPUT,
                "--lw",
                "4x",
                "--ls",
                "25"
            ]
        );
        assert_eq!(o.thresholds.get("SymbolErrorCounter"), Some(&0));
        let e = IbdiagnetOptions::from_json(&json!({ "speed": "EDT" })).err();
        assert!(
            e.as_deref()
                .is_some_and(|e| e.contains("did you mean `EDR`?")),
            "{e:?}"
        );
        let e =
            IbdiagnetOptions::from_json(&json!({ "thresholds": { "SymbolErorCounter": 5 } })).err();
        assert!(
            e.as_deref()
                .is_some_and(|e| e.contains("did you mean `SymbolErrorCounter`?")),
            "{e:?}"
        );
        assert!(IbdiagnetOptions::from_json(&json!({ "width": "3X" })).is_err());
        assert!(
            IbdiagnetOptions::from_json(&json!({ "thresholds": { "PortRcvErrors": -1 } })).is_err()
        );
        assert!(IbdiagnetOptions::from_json(&json!({ "output": "tmp" })).is_err());
    }
}
