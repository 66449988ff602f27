//! The typed result of `mlxlink` text output.

use serde::Serialize;

/// One `mlxlink -d DEV [-p PORT] [-c] [-m] [-e] ...` output.
///
/// The sections every query prints are typed (`operational`, `supported`, `troubleshooting`,
/// `tool`, and `counters` with `-c`); every section, these included, is also in `sections` as
/// printed, so the sections of other queries (`-m`'s module, `-e`'s eye opening, FEC
/// capabilities, serdes) are read too.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mlxlink {
    /// `Operational Info`: the port's state now.
    pub operational: Operational,
    /// `Supported Info`: the speeds enabled and the ones the cable supports.
    pub supported: Option<Supported>,
    /// `Troubleshooting Info`: the firmware's diagnosis of the link.
    pub troubleshooting: Option<Troubleshooting>,
    /// `Tool Information` (MFT 4.22 and later): firmware, amBER and MFT versions.
    pub tool: Option<ToolInformation>,
    /// `Physical Counters and BER Info` (`-c`).
    pub counters: Option<Counters>,
    /// Every section in output order, its fields as printed.
    pub sections: Vec<Section>,
    /// The text of each `-E-` line (an option the device does not support, a register it
    /// could not read), in output order.
    pub errors: Vec<String>,
    /// The text of each `-W-` line.
    pub warnings: Vec<String>,
    /// The text of each `-I-` line.
    pub notes: Vec<String>,
}

/// `Operational Info`. Values as printed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Operational {
    /// `Active`, `Polling`, `Disable`...
    pub state: Option<String>,
    /// `LinkUp`, `ETH_AN_FSM_ENABLE`, `Disabled`, `N/A`...
    pub physical_state: Option<String>,
    /// `IB-HDR`, `100G`, `25GbE`, `N/A` when the link is down.
    pub speed: Option<String>,
    /// The active width: `4x`, `2x`, `1x`.
    pub width: Option<String>,
    /// The active FEC: `No FEC`, `Firecode FEC`, `RS-FEC - (544,514) + PLR`...
    pub fec: Option<String>,
    /// `No Loopback`, `PHY Remote Loopback`...
    pub loopback_mode: Option<String>,
    /// `ON` or `OFF`.
    pub auto_negotiation: Option<String>,
}

/// `Supported Info`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Supported {
    /// Whether the masks are the extended ones (`Enabled Link Speed (Ext.)`, ConnectX-6 and
    /// later Ethernet: 50G-per-lane names like `100G_2X`).
    pub extended: bool,
    /// `Enabled Link Speed`: what the port may link at.
    pub enabled_link_speed: Option<SpeedMask>,
    /// `Supported Cable Speed`: what the cable or module supports.
    pub supported_cable_speed: Option<SpeedMask>,
}

/// A speed mask and its speeds: `0x000007f2 (100G_2X,100G_4X,...)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedMask {
    /// The mask as printed (`0x000007f2`).
    pub mask: String,
    /// The speeds it names, in output order (`HDR`, `EDR`, `100G_4X`, `25G`).
    pub speeds: Vec<String>,
}

/// `Troubleshooting Info`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Troubleshooting {
    /// `Status Opcode`: 0 when no issue was observed.
    pub status_opcode: Option<u32>,
    /// `Group Opcode` as printed (`N/A`, `PLU`, `AN`).
    pub group_opcode: Option<String>,
    /// `Recommendation`: the firmware's advice (`No issue was observed`).
    pub recommendation: Option<String>,
}

/// `Tool Information`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolInformation {
    /// `Firmware Version` of the device (`20.36.1010`).
    pub firmware_version: Option<String>,
    /// `amBER Version`.
    pub amber_version: Option<String>,
    /// `MFT Version` as printed (`mft 4.24.0-72`).
    pub mft_version: Option<String>,
}

/// `Physical Counters and BER Info` (`mlxlink -c`). A BER is kept as printed (`15E-255`,
/// mlxlink's coefficient and exponent); counters are numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counters {
    /// `Time Since Last Clear [Min]`.
    pub time_since_last_clear_min: Option<f64>,
    /// `Symbol Errors` (InfiniBand).
    pub symbol_errors: Option<u64>,
    /// `Symbol BER`.
    pub symbol_ber: Option<String>,
    /// `Effective Physical Errors`: errors left after FEC.
    pub effective_physical_errors: Option<u64>,
    /// `Effective Physical BER`.
    pub effective_physical_ber: Option<String>,
    /// `Raw Physical Errors Per Lane`: errors before FEC, one per lane.
    pub raw_physical_errors_per_lane: Vec<u64>,
    /// `Raw Physical BER`.
    pub raw_physical_ber: Option<String>,
    /// `Link Down Counter`.
    pub link_down_counter: Option<u64>,
    /// `Link Error Recovery Counter`.
    pub link_error_recovery_counter: Option<u64>,
}

/// One section as printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Its title (`Module Info`).
    pub title: String,
    /// Its fields in output order.
    pub fields: Vec<Field>,
}

/// One `label : value` line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The label without its padding (`Temperature [C]`).
    pub label: String,
    /// The value as printed; empty when the tool printed none.
    pub value: String,
}
