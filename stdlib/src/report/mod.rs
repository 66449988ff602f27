//! `report::`: what a runbook publishes to `cairn report`: its result tables and its verdict
//! lines. Each call is a journaled action on the host that makes it (the controller, for a
//! recipe's summary), so the report reads them from the journal like any other result, and a
//! resume replays them instead of publishing twice.

pub mod builtins;

/// The namespace the builtins are registered under (and their journal names' prefix).
pub(crate) const NAMESPACE: &str = "report";
