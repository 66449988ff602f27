//! `ethtool`: a network interface's driver counters (`ethtool -S`), where a lossless RoCE
//! port shows its PFC pause frames and its discards (mlx5 `rx_prio3_pause`,
//! `rx_discards_phy`, `rx_out_of_buffer`), and its driver (`ethtool -i`): which driver and
//! firmware run the port, at which PCI address.
//!
//! The grammars follow ethtool's own printing (`ethtool.c`, `do_gstats` and `dump_drvinfo`):
//! `stats.pest` and `driver.pest`; `sim.rs` prints a RoCE port's pause counters.

mod driver;
pub(crate) mod sim;
mod stats;
mod types;

pub use types::{EthtoolDriver, EthtoolStats, Stat};

/// Parses `ethtool -i IFACE` output.
///
/// Claims: output that starts with `driver:` followed only by the fields ethtool prints after
/// it, in its order (`version`, `firmware-version`, `expansion-rom-version`, `bus-info`, the
/// `supports-*: yes|no` lines); or ethtool's own failure lines alone (`Cannot get driver
/// information: No such device`), which are the result's `error`. Any other line is refused.
pub fn parse_driver(text: &str) -> Result<EthtoolDriver, crate::ParseError> {
    driver::parse(text)
}

/// Parses `ethtool -S IFACE` output, whole or filtered by `grep`.
///
/// Claims: output that starts with ethtool's title `NIC statistics:` (or `PHY statistics:`)
/// followed only by counter lines (`name: N`); or counter lines alone, each indented as ethtool
/// indents them (what `ethtool -S IFACE | grep ...` leaves); or ethtool's own failure lines
/// alone (`no stats available`, `Cannot get stats strings information: ...`), which are the
/// result's `error`. Unindented `name: value` lines without the title (`ethtool -i`) and any
/// other line are refused.
pub fn parse_stats(text: &str) -> Result<EthtoolStats, crate::ParseError> {
    stats::parse(text)
}
