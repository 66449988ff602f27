//! `ethtool`: a network interface's driver counters (`ethtool -S`), where a lossless RoCE
//! port shows its PFC pause frames and its discards (mlx5 `rx_prio3_pause`,
//! `rx_discards_phy`, `rx_out_of_buffer`).
//!
//! The grammar follows ethtool's own printing (`ethtool.c`, `do_gstats`); it is `stats.pest`.

mod stats;
mod types;

pub use types::{EthtoolStats, Stat};

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
