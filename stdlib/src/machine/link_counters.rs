//! A simulated IB port's link health counters (layer 1): what `perfquery`, `ibqueryerrors` and
//! `mlxlink -c` all report of the same port, from its cable's faults (`machine::guest`'s
//! `symbol_errors`, `symbol_errors_per_s`, `link_downs`, `effective_ber`) and how long the port
//! has been up on the clock of the host that asks.
//!
//! A host's channel adapter port holds its cable's errors; the switch port at the other end
//! counts none (as the simulated `ibdiagnet` reports them).

use serde_json::Value;

use crate::machine::guest::GuestHw;
use crate::machine::ofed::OfedState;

/// How long after the drivers load the subnet manager brings the port up (`machine::ports`).
const SM_SWEEP_MILLIS: u64 = 2000;

/// `SymbolErrorCounter` is 16 bits and stops at its ceiling (IBA PortCounters).
pub(crate) const SYMBOL_ERROR_CEILING: u64 = 65_535;
/// `LinkDownedCounter` is 8 bits and stops at its ceiling.
pub(crate) const LINK_DOWNED_CEILING: u64 = 255;

/// When a port came up on its host's clock: its OFED drivers loaded, then the SM's sweep.
pub(crate) fn up_millis(ofed: Option<&Value>) -> u64 {
    let ofed: OfedState = ofed
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    ofed.loaded_millis + SM_SWEEP_MILLIS
}

/// One IB port's counters now.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LinkCounters {
    /// Symbol errors since the port came up (mlxlink's 64-bit count; the PMA's stops at
    /// [`SYMBOL_ERROR_CEILING`]).
    pub(crate) symbol_errors: u64,
    /// Link downs.
    pub(crate) link_downs: u64,
    /// The effective physical BER as printed (`15E-255`: none).
    pub(crate) effective_ber: String,
    /// Errors left after FEC: the BER times the bits the port carried at its rate.
    pub(crate) effective_errors: u64,
    /// Seconds since the port came up.
    pub(crate) up_secs: u64,
}

/// mlxlink's BER for no error at all (a coefficient of 15 and the largest magnitude).
pub(crate) const NO_ERRORS_BER: &str = "15E-255";

/// The counters of `hw`'s IB port, up since `up_millis`, read at `now_millis`.
pub(crate) fn link_counters(hw: &GuestHw, up_millis: u64, now_millis: u64) -> LinkCounters {
    let up_secs = now_millis.saturating_sub(up_millis) / 1000;
    let cable = &hw.cable;
    let symbol_errors = hw
        .symbol_errors
        .saturating_add(cable.symbol_errors_per_s.saturating_mul(up_secs));
    let ber = cable.effective_ber.as_deref().and_then(crate::grammar::ber);
    let bits = f64::from(hw.ib_rate_gbps()) * 1e9 * up_secs as f64;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a count, rounded down
    let effective_errors = ber.map_or(0, |b| (b * bits) as u64);
    LinkCounters {
        symbol_errors,
        link_downs: cable.link_downs,
        effective_ber: cable
            .effective_ber
            .clone()
            .unwrap_or_else(|| NO_ERRORS_BER.to_owned()),
        effective_errors,
        up_secs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_errors_grow_with_the_time_up_and_the_ber_counts_errors() {
        let hw = GuestHw::from_options("n1", |k| match k {
            "symbol_errors_per_s" => Some("3"),
            "effective_ber" => Some("2E-9"),
            "symbol_errors" => Some("10"),
            _ => None,
        });
        let at_start = link_counters(&hw, 5_000, 5_000);
        assert_eq!((at_start.symbol_errors, at_start.effective_errors), (10, 0));
        let later = link_counters(&hw, 5_000, 65_000);
        assert_eq!(later.symbol_errors, 10 + 3 * 60);
        // 2e-9 of 100 Gb/s for 60 s.
        assert_eq!(later.effective_errors, 12_000);
        assert_eq!(later.effective_ber, "2E-9");
        let clean = GuestHw::from_options("n2", |_| None);
        assert_eq!(
            link_counters(&clean, 0, 90_000).effective_ber,
            NO_ERRORS_BER
        );
    }
}
