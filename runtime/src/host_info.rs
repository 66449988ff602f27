//! A host as runbooks see it: a leaf type that the run's shared state, the debugger's pauses
//! and the host context all hold, so none of them imports another for it.

use std::collections::BTreeMap;

use serde_json::Value;

/// The interpreter's own machine's name: the group `stage ... on controller` runs on, and the
/// host its journal (`controller.jsonl`), records and messages name. No inventory host or group
/// may take it.
pub const CONTROLLER: &str = "controller";

/// A host as runbooks see it through `host()` and `hosts()`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HostInfo {
    /// Groups, including `all`.
    pub groups: Vec<String>,
    /// The name.
    pub name: String,
    /// Inventory vars.
    pub vars: BTreeMap<String, Value>,
}
