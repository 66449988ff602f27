//! The typed result of `ibqueryerrors` output.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::grammar::{Message, ToolError};
use crate::ib::link::PortLink;

/// One `ibqueryerrors [-r] [--data] [--counters] [-s ...]` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbQueryErrors {
    /// Each node printed, in output order: those with a counter over its threshold (or every
    /// node, `--counters`).
    pub nodes: Vec<ErrorNode>,
    /// The closing `## Summary` lines; null when the capture stops before them.
    pub summary: Option<Summary>,
    /// The warnings the tool printed (`ibwarn: ...`, libibnetdisc's `src/file.c:N; ...`):
    /// a query that failed on a node, with their line numbers.
    pub warnings: Vec<Message>,
    /// The tool's own fatal line (`ibqueryerrors: iberror: failed: ...`, `ibpanic: ...`).
    pub error: Option<ToolError>,
}

/// One node's block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorNode {
    /// `errors` (`Errors for`) or `data_counters` (`Data Counters for`, `--counters`).
    pub kind: String,
    /// The node's GUID as printed: a switch's (its port 0 GUID); null for a CA.
    pub guid: Option<String>,
    /// The node description (or its name from a node name map).
    pub name: String,
    /// Its port lines, in output order.
    pub ports: Vec<ErrorPort>,
}

/// One `GUID 0x... port N:` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorPort {
    /// The port GUID as printed (not zero-padded).
    pub guid: String,
    /// The port number; null for `port ALL`.
    pub port: Option<u32>,
    /// True for `port ALL`: a switch's counters summed over its ports.
    pub all_ports: bool,
    /// Each counter printed, by name: over its threshold, or a data counter (`--data`).
    pub counters: BTreeMap<String, u64>,
    /// The scaled value printed beside a data counter (`4.820KB`), by name.
    pub scaled: BTreeMap<String, String>,
    /// The `Link info:` line under it (`-r`).
    pub link: Option<PortLink>,
}

/// The `## Summary` lines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `N nodes checked`.
    pub nodes_checked: u64,
    /// `N bad nodes found`.
    pub bad_nodes: u64,
    /// `N ports checked`; null when the line is missing.
    pub ports_checked: Option<u64>,
    /// `N ports have errors beyond threshold`.
    pub bad_ports: Option<u64>,
    /// `## Thresholds: [Name = V]`, by name; null for `## (null)` (no threshold file read:
    /// every threshold is 0) or when the line is missing.
    pub thresholds: Option<BTreeMap<String, u64>>,
    /// `N PMA query failures`: printed only when some failed, else 0.
    pub pma_query_failures: u64,
    /// `## Suppressed:` counter names; null when the line is missing.
    pub suppressed: Option<Vec<String>>,
}
