//! The typed results of `ethtool -S` and `ethtool -i`.

use serde::Serialize;

use crate::grammar::ToolError;

/// The counters `ethtool -S IFACE` printed (all of them, or the lines a `grep` kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EthtoolStats {
    /// `NIC` for `NIC statistics:` (`-S`), `PHY` for `PHY statistics:` (`--phy-statistics`);
    /// `null` when the title is not in the output (`ethtool -S IFACE | grep ...`).
    pub group: Option<String>,
    /// Every counter line, in printed order.
    pub stats: Vec<Stat>,
    /// A published copy left counters out (`..` or `...` lines).
    pub elided: bool,
    /// ethtool's own failure (`no stats available`, `Cannot get stats strings information:
    /// Operation not supported`): kind `no_stats`, `no_memory`, `stats_strings`, `stats` or
    /// `socket`, the line as printed and its number.
    pub error: Option<ToolError>,
}

/// One counter of the driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stat {
    /// The driver's name for it, as printed (`rx_prio3_pause`, `rxq0: rx_bytes`).
    pub name: String,
    /// Its value.
    pub value: u64,
}
