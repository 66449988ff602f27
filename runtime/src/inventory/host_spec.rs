//! One host of an inventory, resolved: name, address, every group it is in, and its vars.

use std::collections::BTreeMap;

use super::Address;

/// A host as the executor sees it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostSpec {
    /// How to reach it (`ssh://<name>` when the inventory gives no address).
    pub address: Address,
    /// Every group it is in: `all` first, then its own groups and their parents, in the order the
    /// inventory declares them (the order in which their vars were merged).
    pub groups: Vec<String>,
    /// Its name, unique in the inventory.
    pub name: String,
    /// Its vars: the inventory's `[vars]`, overridden by each group's, overridden by its own.
    pub vars: BTreeMap<String, serde_json::Value>,
}

impl HostSpec {
    /// Whether the host is in `group`.
    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }
}
