//! The typed result of ibdiagnet's console output.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::grammar::Message;

/// One `ibdiagnet [...]` run as its console shows it: the stage table that ends it, the fabric
/// summary (ibdiagnet2), where the log is, and every other line as a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbdiagnetSummary {
    /// `ibdiagnet2` (`Summary` / `-I- Stage Warnings Errors Comment`, MFT and ibutils2) or
    /// `ibdiagnet1` (`-I- Stages Status Report:` / `STAGE Errors Warnings`, ibutils 1.x).
    pub format: String,
    /// Each stage row, in output order.
    pub stages: Vec<Stage>,
    /// The sum of the stages' errors.
    pub errors: u64,
    /// The sum of the stages' warnings.
    pub warnings: u64,
    /// ibdiagnet2's `Fabric Summary` block; null when not printed.
    pub fabric: Option<FabricSummary>,
    /// Where the full log is (`-I- You can find detailed errors/warnings in: PATH`, `Please see
    /// PATH for complete log`).
    pub log_file: Option<String>,
    /// Every other line (the checks' own reports, `-E-`/`-W-`/`-I-` lines), with its number.
    pub messages: Vec<Message>,
}

/// One stage row of the summary table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// The stage as printed: `Discovery`, `Speed / Width checks`, `Bad GUIDs/LIDs Check`.
    pub name: String,
    /// Its errors.
    pub errors: u64,
    /// Its warnings.
    pub warnings: u64,
    /// ibdiagnet2's `Comment` column; null when empty.
    pub comment: Option<String>,
}

/// ibdiagnet2's `Fabric Summary`: `Label : N` lines.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FabricSummary {
    /// `Total Nodes`.
    pub total_nodes: Option<u64>,
    /// `IB Switches`.
    pub switches: Option<u64>,
    /// `IB Channel Adapters`.
    pub channel_adapters: Option<u64>,
    /// `IB Aggregation Nodes` (SHARP).
    pub aggregation_nodes: Option<u64>,
    /// `IB Routers`.
    pub routers: Option<u64>,
    /// Every other `Label: value` line of the block, as printed (`Number of LL aggregation
    /// trees: 2`, `Unique job IDs: 1024`).
    pub other: BTreeMap<String, String>,
}
