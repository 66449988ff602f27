//! What a fabric check reads from `ibdiagnet2.db_csv`: nodes, ports, links, subnet managers and
//! port counters, each row with the byte span it was read from (so a finding or a later check
//! can point at the line).
//!
//! Codes as the InfiniBand Architecture Specification defines them (PortInfo, NodeInfo,
//! SMInfo attributes), decoded the way published db_csv readers decode them (see `mod.rs`).

use std::collections::BTreeMap;

use serde::Serialize;

/// The sections of one `ibdiagnet2.db_csv` a fabric check needs.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct DbCsv {
    /// `START_NODES`.
    pub nodes: Vec<Node>,
    /// `START_PORTS`.
    pub ports: Vec<Port>,
    /// `START_LINKS`.
    pub links: Vec<Link>,
    /// `START_SM_INFO` (absent from the file: empty).
    pub subnet_managers: Vec<SmInfo>,
    /// `START_PM_INFO` (absent from the file: empty).
    pub counters: Vec<PortCounters>,
    /// The names of every section in the file, in order (those not read too).
    pub sections: Vec<String>,
}

/// Where a row was in the file: byte offset and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
}

/// One node (`NodeDesc,NumPorts,NodeType,...,NodeGUID,...`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Node {
    pub guid: String,
    pub description: String,
    /// `CA`, `Switch`, `Router` (NodeType 1, 2, 3).
    pub kind: String,
    pub port_count: u32,
    pub span: Span,
}

/// One port (`NodeGuid,PortGuid,PortNum,...,LID,...,LinkWidthActv,...`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Port {
    pub node_guid: String,
    pub port_guid: String,
    pub port: u32,
    pub lid: u32,
    /// `1X`, `2X`, `4X`, `8X`, `12X` from the LinkWidthActv bit; `None` when it is 0 (down).
    pub width: Option<String>,
    /// `SDR` ... `NDR`, `XDR` from LinkSpeedActv; `None` when it is 0.
    pub speed: Option<String>,
    /// `Down`, `Init`, `Armed`, `Active` (PortState 1 to 4).
    pub state: String,
    /// `LinkUp` (5), `Polling` (2), ... (PortPhyState).
    pub phys_state: String,
    pub span: Span,
}

/// One cable: two node ports (`NodeGuid1,PortNum1,NodeGuid2,PortNum2`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    pub node_guid1: String,
    pub port1: u32,
    pub node_guid2: String,
    pub port2: u32,
    pub span: Span,
}

/// One subnet manager's SMInfo (`NodeGUID,PortGUID,PortNumber,...,SmState,Priority`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmInfo {
    pub node_guid: String,
    pub port: u32,
    /// `not active`, `discovering`, `standby`, `master` (SmState 0 to 3).
    pub state: String,
    pub priority: u32,
    pub span: Span,
}

/// One port's performance counters (`START_PM_INFO`): every numeric column by its name
/// (`SymbolErrorCounter`, `LinkDownedCounter`, `PortRcvErrors`, ...; `N/A` cells left out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PortCounters {
    pub node_guid: String,
    pub port: u32,
    pub values: BTreeMap<String, u64>,
    pub span: Span,
}

/// NodeType: 1 channel adapter, 2 switch, 3 router.
pub(crate) fn node_kind(code: u64) -> Option<&'static str> {
    match code {
        1 => Some("CA"),
        2 => Some("Switch"),
        3 => Some("Router"),
        _ => None,
    }
}

/// LinkWidthActive's bit: 1 is 1X, 2 is 4X, 4 is 8X, 8 is 12X, 16 is 2X.
pub(crate) fn width_name(bits: u64) -> Option<&'static str> {
    [(16, "2X"), (8, "12X"), (4, "8X"), (2, "4X"), (1, "1X")]
        .into_iter()
        .find(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| name)
}

/// The lanes of a width name (`4X` is 4).
pub(crate) fn width_lanes(name: &str) -> Option<u32> {
    name.trim()
        .trim_end_matches(['X', 'x'])
        .parse()
        .ok()
        .filter(|n| [1, 2, 4, 8, 12].contains(n))
}

/// The db_csv LinkSpeedActv column: the extended speed in the high byte (1 FDR, 2 EDR, 4 HDR,
/// 8 NDR, 16 XDR), else the base speed in the low byte (1 SDR, 2 DDR, 4 QDR).
pub(crate) fn speed_name(value: u64) -> Option<&'static str> {
    let ext = [(16, "XDR"), (8, "NDR"), (4, "HDR"), (2, "EDR"), (1, "FDR")]
        .into_iter()
        .find(|(bit, _)| (value >> 8) & bit != 0);
    let base = [(4, "QDR"), (2, "DDR"), (1, "SDR")]
        .into_iter()
        .find(|(bit, _)| value & bit != 0);
    ext.or(base).map(|(_, name)| name)
}

/// Speeds slowest first, for "below the expected speed".
pub(crate) const SPEEDS: &[&str] = &["SDR", "DDR", "QDR", "FDR", "EDR", "HDR", "NDR", "XDR"];

/// The per-lane Gb/s of a speed name, as `ibdiagnet --ls` takes it (`2.5`, ..., `25` EDR, `50`
/// HDR, `100` NDR).
pub(crate) fn speed_lane_gbps(name: &str) -> Option<&'static str> {
    match name {
        "SDR" => Some("2.5"),
        "DDR" => Some("5"),
        "QDR" => Some("10"),
        "FDR" => Some("14"),
        "EDR" => Some("25"),
        "HDR" => Some("50"),
        "NDR" => Some("100"),
        "XDR" => Some("200"),
        _ => None,
    }
}

/// PortState: 1 Down, 2 Init, 3 Armed, 4 Active.
pub(crate) fn port_state(code: u64) -> &'static str {
    match code {
        1 => "Down",
        2 => "Init",
        3 => "Armed",
        4 => "Active",
        _ => "NoChange",
    }
}

/// PortPhysicalState: 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp,
/// 6 LinkErrorRecovery, 7 PhyTest.
pub(crate) fn phys_state(code: u64) -> &'static str {
    match code {
        1 => "Sleep",
        2 => "Polling",
        3 => "Disabled",
        4 => "PortConfigurationTraining",
        5 => "LinkUp",
        6 => "LinkErrorRecovery",
        7 => "PhyTest",
        _ => "NoStateChange",
    }
}

/// SMInfo's SMState: 0 not active, 1 discovering, 2 standby, 3 master (`sminfo(8)`).
pub(crate) fn sm_state(code: u64) -> Option<&'static str> {
    match code {
        0 => Some("not active"),
        1 => Some("discovering"),
        2 => Some("standby"),
        3 => Some("master"),
        _ => None,
    }
}
