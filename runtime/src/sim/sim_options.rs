//! The options of a `sim:` address (`sim:linux?reboot_secs=2&clock=virtual`), checked and typed.

use std::collections::{BTreeMap, BTreeSet};

use super::SimError;

/// The options the simulator itself understands; tools add their own.
pub(crate) const SIMULATOR_OPTIONS: &[&str] = &[
    "clock",
    "drop_once",
    "fail_once",
    "fault_reboot_hang",
    "fault_unreachable",
    "fence",
    "reboot_secs",
    "time_scale",
];

/// The fastest a scaled clock runs: an hour a second.
const MAX_TIME_SCALE: u32 = 3600;

/// The longest reboot the simulator accepts: a year.
const MAX_REBOOT_SECS: f64 = 366.0 * 86_400.0;

/// Typed simulator options; the raw map stays available to tools.
#[derive(Debug, Clone)]
pub(crate) struct SimOptions {
    /// Commands whose first run completes but whose connection then drops.
    pub(crate) drop_once: BTreeSet<String>,
    /// Commands whose first run fails with `injected failure`.
    pub(crate) fail_once: BTreeSet<String>,
    /// A reboot never comes back.
    pub(crate) fault_reboot_hang: bool,
    /// The host never answers.
    pub(crate) fault_unreachable: bool,
    /// The host fences changing commands (`fence=false` turns it off, to measure its cost).
    pub(crate) fence: bool,
    /// Every option as given.
    pub(crate) raw: BTreeMap<String, String>,
    /// How long a reboot keeps the host down.
    pub(crate) reboot_millis: u64,
    /// The host runs on a virtual clock persisted in its state.
    pub(crate) virtual_clock: bool,
    /// How many times faster than the wall clock the host's real clock runs (1: not faster).
    pub(crate) time_scale: u32,
}

impl SimOptions {
    /// Checks `raw` against the simulator's options and `tool_options`, the ones the model's
    /// tools declare.
    pub(crate) fn parse<'a>(
        raw: &BTreeMap<String, String>,
        tool_options: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, SimError> {
        let mut known: BTreeSet<&str> = SIMULATOR_OPTIONS.iter().copied().collect();
        known.extend(tool_options);
        if let Some(key) = raw.keys().find(|key| !known.contains(key.as_str())) {
            return Err(SimError::UnknownOption {
                known: known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                key: key.clone(),
            });
        }
        let mut options = Self {
            drop_once: BTreeSet::new(),
            fail_once: BTreeSet::new(),
            fault_reboot_hang: false,
            fault_unreachable: false,
            fence: true,
            raw: raw.clone(),
            reboot_millis: 1000,
            virtual_clock: false,
            time_scale: 1,
        };
        for (key, value) in raw {
            match key.as_str() {
                "clock" => {
                    options.virtual_clock = match value.as_str() {
                        "virtual" => true,
                        "real" => false,
                        _ => return Err(bad(key, value, "`real` or `virtual`")),
                    };
                }
                "drop_once" => options.drop_once = names(key, value)?,
                "fail_once" => options.fail_once = names(key, value)?,
                "fault_reboot_hang" => options.fault_reboot_hang = flag(key, value)?,
                "fault_unreachable" => options.fault_unreachable = flag(key, value)?,
                "fence" => options.fence = flag(key, value)?,
                "reboot_secs" => options.reboot_millis = seconds(key, value)?,
                "time_scale" => options.time_scale = time_scale(key, value)?,
                _ => {}
            }
        }
        if options.virtual_clock && options.time_scale > 1 {
            return Err(bad(
                "time_scale",
                &options.time_scale.to_string(),
                "no `time_scale` with `clock=virtual`: a scaled clock is the real clock run \
                 faster, a virtual one takes no time at all",
            ));
        }
        Ok(options)
    }
}

fn bad(key: &str, value: &str, expected: &str) -> SimError {
    SimError::BadOption {
        expected: expected.into(),
        key: key.into(),
        value: value.into(),
    }
}

fn flag(key: &str, value: &str) -> Result<bool, SimError> {
    match value {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(bad(key, value, "`true` or `false`")),
    }
}

fn names(key: &str, value: &str) -> Result<BTreeSet<String>, SimError> {
    let names: BTreeSet<String> = value.split(',').map(str::trim).map(String::from).collect();
    if names
        .iter()
        .any(|name| name.is_empty() || name.contains(char::is_whitespace))
    {
        return Err(bad(
            key,
            value,
            "program names separated by commas, e.g. `mlxconfig,esxcli`",
        ));
    }
    Ok(names)
}

fn time_scale(key: &str, value: &str) -> Result<u32, SimError> {
    value
        .parse::<u32>()
        .ok()
        .filter(|factor| (1..=MAX_TIME_SCALE).contains(factor))
        .ok_or_else(|| {
            bad(
                key,
                value,
                &format!(
                    "a whole factor from 1 to {MAX_TIME_SCALE}, e.g. `600` (a wall second is ten \
                     simulated minutes)"
                ),
            )
        })
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // checked: 0 ≤ secs ≤ a year
fn seconds(key: &str, value: &str) -> Result<u64, SimError> {
    match value.parse::<f64>() {
        Ok(secs) if (0.0..=MAX_REBOOT_SECS).contains(&secs) => Ok((secs * 1000.0).round() as u64),
        _ => Err(bad(
            key,
            value,
            "seconds, from 0 to a year, e.g. `2` or `0.5`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<SimOptions, SimError> {
        let raw = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        SimOptions::parse(&raw, ["fw_version"])
    }

    #[test]
    fn defaults_and_values() {
        let options = parse(&[]).map_err(|e| e.to_string());
        assert!(matches!(
            options,
            Ok(SimOptions {
                reboot_millis: 1000,
                virtual_clock: false,
                ..
            })
        ));
        let options = parse(&[
            ("reboot_secs", "0.25"),
            ("clock", "virtual"),
            ("fw_version", "old"),
        ]);
        let scaled = parse(&[("time_scale", "600")]);
        assert!(matches!(
            scaled,
            Ok(SimOptions {
                time_scale: 600,
                virtual_clock: false,
                ..
            })
        ));
        assert!(matches!(
            options,
            Ok(SimOptions {
                reboot_millis: 250,
                virtual_clock: true,
                ..
            })
        ));
        let Ok(options) = parse(&[("fail_once", "mlxconfig, esxcli")]) else {
            panic!()
        };
        assert_eq!(
            options.fail_once.into_iter().collect::<Vec<_>>(),
            ["esxcli", "mlxconfig"]
        );
    }

    #[test]
    fn rejects_bad_values_and_unknown_keys() {
        for (key, value) in [
            ("reboot_secs", "-1"),
            ("reboot_secs", "NaN"),
            ("reboot_secs", "two"),
            ("clock", "fast"),
            ("fault_reboot_hang", "maybe"),
            ("fail_once", "a,,b"),
            ("time_scale", "0"),
            ("time_scale", "1.5"),
            ("time_scale", "3601"),
        ] {
            assert!(
                matches!(parse(&[(key, value)]), Err(SimError::BadOption { .. })),
                "{key}"
            );
        }
        let both = parse(&[("clock", "virtual"), ("time_scale", "600")]);
        assert!(
            matches!(&both, Err(SimError::BadOption { key, .. }) if key == "time_scale"),
            "{both:?}"
        );
        let err = parse(&[("reboot_sec", "2")]).err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("unknown sim option `reboot_sec`"));
    }
}
