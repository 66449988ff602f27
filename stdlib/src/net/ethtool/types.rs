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

/// What `ethtool -i IFACE` printed: the interface's driver, its firmware and its PCI address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EthtoolDriver {
    /// `driver:` (`mlx5_core`); `null` only when ethtool printed its error instead.
    pub driver: Option<String>,
    /// `version:`: the driver's version (a kernel release for in-tree drivers).
    pub version: Option<String>,
    /// `firmware-version:` as printed (mlx5: `14.23.1020 (MT_2420110034)`, the firmware and
    /// the board's PSID).
    pub firmware_version: Option<String>,
    /// `expansion-rom-version:`.
    pub expansion_rom_version: Option<String>,
    /// `bus-info:`: the PCI address with its domain (`0000:af:00.0`).
    pub bus_info: Option<String>,
    /// `supports-statistics:` (`ethtool -S` has counters to show).
    pub supports_statistics: Option<bool>,
    /// `supports-test:`.
    pub supports_test: Option<bool>,
    /// `supports-eeprom-access:`.
    pub supports_eeprom_access: Option<bool>,
    /// `supports-register-dump:`.
    pub supports_register_dump: Option<bool>,
    /// `supports-priv-flags:`.
    pub supports_priv_flags: Option<bool>,
    /// ethtool's own failure (`Cannot get driver information: No such device`): kind
    /// `driver_info` or `socket`, the line as printed and its number.
    pub error: Option<ToolError>,
}
