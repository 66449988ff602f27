//! What `mlxfwreset -d DEV reset` prints, typed.

use serde::Serialize;

use crate::grammar::{Message, ToolError};

/// `mlxfwreset -d DEV [-y] [-l N] reset`: the level chosen, the answer, each step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResetRun {
    /// The device of the heading (`4b:00.0`, `/dev/mst/mt4129_pciconf0`).
    pub device: Option<String>,
    /// The level the heading announces (`3`).
    pub level: Option<u32>,
    /// Its description (`Driver restart and PCI reset`).
    pub level_description: Option<String>,
    /// The answer after `Continue with reset?[y/N]` (`y`, also printed under `-y`).
    pub answer: Option<String>,
    /// `Reset type: 0` of the settings line newer versions print before the steps.
    pub reset_type: Option<u32>,
    /// `Reset sync: 0`.
    pub reset_sync: Option<u32>,
    /// `Reset method: 0`.
    pub reset_method: Option<u32>,
    /// The `-I- NAME   -Done` steps, in order.
    pub steps: Vec<ResetStep>,
    /// The tool said the firmware is loaded (`-I- FW was loaded successfully.`).
    pub loaded: bool,
    /// `-W-` lines.
    pub warnings: Vec<Message>,
    /// The tool's own error: the first `-E-` line, or the first step that printed `Failed`.
    pub error: Option<ToolError>,
    /// Every other line, with its line number.
    pub messages: Vec<Message>,
}

/// `-I- Restarting MST                          -Skipped`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResetStep {
    /// `Restarting MST`.
    pub name: String,
    /// `Done`, `Skipped` or `Failed`, as printed.
    pub status: String,
    /// The line number, from 1.
    pub line: usize,
}
