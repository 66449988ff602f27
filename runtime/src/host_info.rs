//! A host as runbooks see it: a leaf type that the run's shared state, the debugger's pauses
//! and the host context all hold, so none of them imports another for it.

use std::collections::BTreeMap;

use serde_json::Value;

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
