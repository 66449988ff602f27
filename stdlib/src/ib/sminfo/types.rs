//! The typed result of `sminfo` output.

use serde::Serialize;

use crate::grammar::{Message, ToolError};

/// One `sminfo [SM_LID|SM_DR_PATH]` run: the subnet manager that answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmInfo {
    /// The SM's LID; null when no SM answered (`error`).
    pub lid: Option<u32>,
    /// The SM port's GUID, as printed (not zero-padded).
    pub guid: Option<String>,
    /// The activity count: a master SM's rises between two queries.
    pub activity_count: Option<u32>,
    /// The SM's priority (0 to 15: the highest wins mastership).
    pub priority: Option<u8>,
    /// The state number: 0 not active, 1 discovering, 2 standby, 3 master.
    pub state: Option<u8>,
    /// The state's name as printed: `SMINFO_MASTER`, `SMINFO_STANDBY`...
    pub state_name: Option<String>,
    /// True when the SM that answered is the master (`state 3`).
    pub master: bool,
    /// The tool's warnings (`ibwarn: ...`), with their line numbers.
    pub warnings: Vec<Message>,
    /// The tool's own fatal line: `sminfo: iberror: failed: query` when no SM answers.
    pub error: Option<ToolError>,
}
