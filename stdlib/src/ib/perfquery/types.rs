//! The typed result of `perfquery` output.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::grammar::{Message, ToolError};

/// One `perfquery [-x] [-E|-D|...] [LID|GUID] [PORT]` run: one block per port queried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfQuery {
    /// Each block, in output order.
    pub blocks: Vec<PerfBlock>,
    /// The tool's warnings (`ibwarn: ...`), with their line numbers.
    pub warnings: Vec<Message>,
    /// The tool's own fatal line (`perfquery: iberror: failed: ...`, `ibpanic: ...`).
    pub error: Option<ToolError>,
}

/// One header and its fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfBlock {
    /// What was queried, as printed: `Port counters`, `Port extended counters`,
    /// `PortRcvErrorDetails counters`.
    pub title: String,
    /// True for `Port extended counters` (`-x`: 64-bit data counters).
    pub extended: bool,
    /// How the port was addressed, as printed: `Lid 1719`, `DR path slid 0; dlid 0; 0,1`.
    pub port_id: String,
    /// The LID, when the port was addressed by LID.
    pub lid: Option<u32>,
    /// The port number (255: every port, `-a`).
    pub port: u32,
    /// `CapMask:` as printed; null when the header has none.
    pub cap_mask: Option<String>,
    /// `CapMask2:` as printed (newer infiniband-diags, `-x`).
    pub cap_mask2: Option<String>,
    /// Every field printed as a decimal number, by name (`SymbolErrorCounter`, `PortXmitData`,
    /// `PortSelect`).
    pub counters: BTreeMap<String, u64>,
    /// Every other field, as printed (`CounterSelect`: `0x0000`).
    pub other: BTreeMap<String, String>,
}
