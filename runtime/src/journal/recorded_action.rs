//! One action as a host's journal knows it: what the reader gathers under each `seq` and the
//! record order (`order.rs`) checks the next record against, below both.

use serde_json::Value;

use super::{Assume, IntentRecord, OutcomeRecord};

/// One action as the journal knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedAction {
    /// The operator's answer, if the outcome was unknown and they gave one.
    pub decision: Option<Assume>,
    /// What was about to run.
    pub intent: IntentRecord,
    /// 1-based line of the intent in the journal file.
    pub line: usize,
    /// What it did, if that was recorded.
    pub outcome: Option<OutcomeRecord>,
    /// Steps recorded while it ran.
    pub progress: Vec<Value>,
}
