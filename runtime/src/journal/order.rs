//! The order cairn writes a host's records in, checked as a journal is read back: a record out
//! of it (a swapped pair, an edit) would make replay answer the wrong action or run one again.
//!
//! For each action, the intent comes first; progress and a decision follow it while it has no
//! outcome; the outcome follows it. A retry (the debugger's, or a resume's of an interrupted
//! or failed action) is a new intent with the same `seq`; a skip in the debugger is a second
//! outcome after a failed one. Otherwise a new intent takes the next `seq`; a `rewind` forgets
//! the actions from its `seq` on, so numbering starts again there.

use std::collections::BTreeMap;

use super::{JournalEvent, RecordedAction};

/// Whether `event` may follow the actions read so far; the reason if not.
pub(super) fn check(
    actions: &BTreeMap<u64, RecordedAction>,
    event: &JournalEvent,
) -> Result<(), String> {
    let pending = |seq: u64, what: &str| match actions.get(&seq) {
        None => Err(format!(
            "a {what} for action {seq}, which has no intent before it"
        )),
        Some(action) if action.outcome.is_some() => Err(format!(
            "a {what} for action {seq} after its outcome (line {})",
            action.line
        )),
        Some(_) => Ok(()),
    };
    match event {
        JournalEvent::Intent(intent) => match actions.get(&intent.seq) {
            // Retried: it failed, or its outcome was never recorded.
            Some(action) if action.outcome.as_ref().is_none_or(|o| !o.ok) => Ok(()),
            Some(action) => Err(format!(
                "an intent for action {} that already finished at line {}",
                intent.seq, action.line
            )),
            None => match actions.keys().next_back() {
                Some(last) if intent.seq < *last => Err(format!(
                    "an intent for action {} after action {last}: the numbering goes back",
                    intent.seq
                )),
                _ => Ok(()),
            },
        },
        JournalEvent::Outcome(outcome) => match actions.get(&outcome.seq) {
            None => Err(format!(
                "an outcome for action {}, which has no intent before it",
                outcome.seq
            )),
            // A skip in the debugger answers a failed outcome with a new one.
            Some(action) if action.outcome.as_ref().is_some_and(|o| o.ok) => Err(format!(
                "a second outcome for action {}, which already succeeded",
                outcome.seq
            )),
            Some(_) => Ok(()),
        },
        JournalEvent::Progress(progress) => pending(progress.seq, "progress record"),
        JournalEvent::Decision(decision) => pending(decision.seq, "decision"),
        _ => Ok(()),
    }
}
