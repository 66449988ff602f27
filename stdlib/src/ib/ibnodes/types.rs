//! The typed result of `ibnodes` (`ibhosts`, `ibswitches`) output.

use serde::Serialize;

use crate::grammar::{Message, ToolError};

/// One `ibnodes`, `ibhosts` or `ibswitches` run: the fabric's nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbNodes {
    /// Each node, in output order (`ibnodes`: the CAs, then the switches).
    pub nodes: Vec<IbNode>,
    /// The warnings discovery printed (`ibwarn: ...`), with their line numbers.
    pub warnings: Vec<Message>,
    /// The fatal line discovery printed (`ibnetdiscover: iberror: ...`, `ibpanic: ...`).
    pub error: Option<ToolError>,
}

/// One node line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbNode {
    /// `ca`, `switch` or `router`.
    pub kind: String,
    /// The node GUID as printed.
    pub guid: String,
    /// How many ports it has.
    pub ports: u32,
    /// The node description.
    pub name: String,
    /// A switch's port 0: `base` or `enhanced`; null for a CA, or when not printed.
    pub port0: Option<String>,
    /// A switch's LID.
    pub lid: Option<u32>,
    /// A switch's LMC.
    pub lmc: Option<u8>,
}
