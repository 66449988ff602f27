//! What `mlxlink::read` returns and journals: a port's link health from `mlxlink -d DEV -c`.

use serde::{Deserialize, Serialize};

use super::Mlxlink;

/// A port's state, FEC, bit error rates and error counters, as mlxlink printed them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkReading {
    /// The device read (`mlx5_0`).
    pub device: String,
    /// `Active`, `Polling`...
    #[serde(deserialize_with = "crate::action::present")]
    pub state: Option<String>,
    #[serde(deserialize_with = "crate::action::present")]
    pub physical_state: Option<String>,
    /// `IB-EDR`, `100G`.
    #[serde(deserialize_with = "crate::action::present")]
    pub speed: Option<String>,
    /// `4x`.
    #[serde(deserialize_with = "crate::action::present")]
    pub width: Option<String>,
    #[serde(deserialize_with = "crate::action::present")]
    pub fec: Option<String>,
    /// `Raw Physical BER` as printed (`1E-8`; `15E-255` is none).
    #[serde(deserialize_with = "crate::action::present")]
    pub raw_ber: Option<String>,
    /// `Effective Physical BER`, after FEC, as printed.
    #[serde(deserialize_with = "crate::action::present")]
    pub effective_ber: Option<String>,
    /// `Symbol Errors` (InfiniBand).
    #[serde(deserialize_with = "crate::action::present")]
    pub symbol_errors: Option<u64>,
    /// `Effective Physical Errors`.
    #[serde(deserialize_with = "crate::action::present")]
    pub effective_errors: Option<u64>,
    /// `Link Down Counter`.
    #[serde(deserialize_with = "crate::action::present")]
    pub link_downs: Option<u64>,
    /// The firmware's advice (`No issue was observed`).
    #[serde(deserialize_with = "crate::action::present")]
    pub recommendation: Option<String>,
}

impl LinkReading {
    /// The reading of `device` in mlxlink's output.
    pub(crate) fn of(device: &str, out: &Mlxlink) -> Self {
        let op = &out.operational;
        let c = out.counters.clone().unwrap_or_default();
        Self {
            device: device.to_owned(),
            state: op.state.clone(),
            physical_state: op.physical_state.clone(),
            speed: op.speed.clone(),
            width: op.width.clone(),
            fec: op.fec.clone(),
            raw_ber: c.raw_physical_ber,
            effective_ber: c.effective_physical_ber,
            symbol_errors: c.symbol_errors,
            effective_errors: c.effective_physical_errors,
            link_downs: c.link_down_counter,
            recommendation: out
                .troubleshooting
                .as_ref()
                .and_then(|t| t.recommendation.clone()),
        }
    }
}
