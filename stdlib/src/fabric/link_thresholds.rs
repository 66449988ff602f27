//! The fabric manifest's `[links]` table: what every link of the fabric must meet, which
//! `fabric::link_sweep` checks. Beside the host classes in the same file:
//!
//! ```toml
//! [links]
//! width = "4X"                # iblinkinfo's active width
//! speed = "EDR"               # SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR
//! effective_ber_max = 1e-12   # mlxlink -c's Effective Physical BER, after FEC
//! symbol_errors_max = 10      # SymbolErrorCounter at either end
//! link_downs_max = 0          # LinkDownedCounter at either end
//! ```

use serde::{Deserialize, Serialize};

/// The speeds a link may be expected at, with what iblinkinfo prints for each lane
/// (infiniband-diags' link speed names).
pub(crate) const SPEEDS: &[(&str, &str)] = &[
    ("SDR", "2.5 Gbps"),
    ("DDR", "5.0 Gbps"),
    ("QDR", "10.0 Gbps"),
    ("FDR10", "10.0 Gbps (FDR10)"),
    ("FDR", "14.0625 Gbps"),
    ("EDR", "25.78125 Gbps"),
    ("HDR", "53.125 Gbps"),
    ("NDR", "106.25 Gbps"),
];

/// What every link must meet; a key left out is not checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LinkThresholds {
    pub(crate) width: Option<String>,
    pub(crate) speed: Option<String>,
    pub(crate) effective_ber_max: Option<f64>,
    pub(crate) symbol_errors_max: Option<u64>,
    pub(crate) link_downs_max: Option<u64>,
}

impl LinkThresholds {
    /// Checks the values a key's type cannot: a known width and speed (the closest named).
    pub(crate) fn checked(self) -> Result<Self, String> {
        if let Some(width) = &self.width
            && !["1X", "2X", "4X", "8X", "12X"].contains(&width.as_str())
        {
            return Err(format!(
                "[links] width `{width}` is not 1X, 2X, 4X, 8X or 12X"
            ));
        }
        if let Some(speed) = &self.speed
            && !SPEEDS.iter().any(|(name, _)| name == speed)
        {
            let names = SPEEDS.iter().map(|(n, _)| *n);
            let hint = cairn_runtime::inventory::closest(speed, names)
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            return Err(format!(
                "[links] speed `{speed}` is no InfiniBand speed{hint}"
            ));
        }
        if self
            .effective_ber_max
            .is_some_and(|b| !(0.0..1.0).contains(&b))
        {
            return Err("[links] effective_ber_max must be from 0 to under 1 (1e-12)".into());
        }
        Ok(self)
    }
}

/// The speed name of what iblinkinfo printed (`25.78125 Gbps` is `EDR`); the text itself
/// when it is none of them.
pub(crate) fn speed_name(printed: &str) -> String {
    SPEEDS
        .iter()
        .find(|(_, text)| *text == printed.trim())
        .map_or_else(|| printed.trim().to_owned(), |(name, _)| (*name).to_owned())
}
