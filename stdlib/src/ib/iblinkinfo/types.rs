//! The typed result of `iblinkinfo` output.

use serde::{Deserialize, Serialize};

use crate::grammar::{Message, ToolError};
use crate::ib::link::PortLink;

/// One `iblinkinfo [-l] [--switches-only|--cas-only] [-d] [-a]` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IbLinkInfo {
    /// Each node, in output order, with its ports.
    pub nodes: Vec<LinkNode>,
    /// The tool's warnings (`ibwarn: ...`, libibnetdisc's `src/file.c:N; ...`).
    pub warnings: Vec<Message>,
    /// The tool's own fatal line (`iblinkinfo: iberror: ...`, `ibpanic: ...`).
    pub error: Option<ToolError>,
}

/// One node: a header and the port lines under it, or (`-l`) consecutive lines naming the
/// same node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkNode {
    /// `switch`, `ca` or `router`; null without a header (`-l`, or port lines a capture kept
    /// without theirs).
    pub kind: Option<String>,
    /// A switch's port 0 GUID, from its header.
    pub guid: Option<String>,
    /// The node description; null when no header or `-l` name came with its ports.
    pub name: Option<String>,
    /// Its ports, in output order.
    pub ports: Vec<LinkPort>,
}

/// One port line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkPort {
    /// The port GUID: printed for a CA's ports, and for every port with `-l`.
    pub guid: Option<String>,
    /// The link and its peer.
    #[serde(flatten)]
    pub link: PortLink,
}
