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

#[cfg(test)]
mod tests {
    use crate::journal::{HostJournal, JournalError};

    const HEADER: &str = r#"{"type":"header","data":{"at":1,"host":"h","hosts":["h"],"inventory":"i","params":{},"run_id":"r","runbook":"b","runbook_hash":"x","version":1}}"#;

    fn intent(seq: u64) -> String {
        format!(
            r#"{{"type":"intent","data":{{"args":{{}},"at":1,"builtin":"run","column":1,"file":"b","line":1,"ordinal":{seq},"reconcile":"ask","seq":{seq},"stage":"s","stage_index":1}}}}"#
        )
    }

    fn outcome(seq: u64, ok: bool) -> String {
        format!(
            r#"{{"type":"outcome","data":{{"at":1,"changed":true,"elapsed_ms":0,"ok":{ok},"reboot_required":false,"result":null,"seq":{seq}}}}}"#
        )
    }

    fn progress(seq: u64) -> String {
        format!(r#"{{"type":"progress","data":{{"at":1,"data":{{}},"seq":{seq}}}}}"#)
    }

    fn load(records: &[String]) -> Result<HostJournal, JournalError> {
        let dir = tempfile::tempdir().map_err(|e| JournalError::io(".".as_ref(), "tmp", e))?;
        let path = dir.path().join("h.jsonl");
        let text: String = std::iter::once(HEADER.to_owned())
            .chain(records.iter().cloned())
            .map(|line| line + "\n")
            .collect();
        std::fs::write(&path, text).map_err(|e| JournalError::io(&path, "write", e))?;
        HostJournal::load(&path, false)
    }

    fn refused_at(records: &[String]) -> Option<usize> {
        match load(records) {
            Err(JournalError::OutOfOrder { line, .. }) => Some(line),
            _ => None,
        }
    }

    #[test]
    fn what_cairn_writes_is_accepted() {
        let rewind = r#"{"type":"rewind","data":{"at":1,"seq":2}}"#.to_owned();
        let debug = r#"{"type":"debug","data":{"at":1,"choice":"retry","seq":2}}"#.to_owned();
        let decision = r#"{"type":"decision","data":{"assume":"redo","at":1,"seq":3}}"#.to_owned();
        let cases = [
            // A reboot: intent, progress, outcome.
            vec![intent(1), progress(1), outcome(1, true)],
            // A failed action retried in the debugger, then skipped.
            vec![
                intent(1),
                outcome(1, true),
                intent(2),
                outcome(2, false),
                debug.clone(),
                intent(2),
                outcome(2, false),
                outcome(2, true),
            ],
            // An unknown outcome decided, then redone by a resume.
            vec![
                intent(1),
                outcome(1, true),
                intent(2),
                outcome(2, true),
                intent(3),
                decision,
                intent(3),
                outcome(3, true),
            ],
            // A rewind to action 2: numbering starts again there.
            vec![
                intent(1),
                outcome(1, true),
                intent(2),
                outcome(2, true),
                rewind,
                intent(2),
                outcome(2, true),
            ],
            // A REPL's second session in the same file.
            vec![
                intent(1),
                outcome(1, true),
                HEADER.to_owned(),
                intent(1),
                outcome(1, true),
            ],
        ];
        for case in cases {
            assert!(load(&case).is_ok(), "{case:?}: {:?}", load(&case).err());
        }
    }

    #[test]
    fn records_out_of_order_are_refused_at_their_line() {
        // Line 1 is the header.
        assert_eq!(refused_at(&[outcome(1, true), intent(1)]), Some(2));
        assert_eq!(
            refused_at(&[progress(1), intent(1), outcome(1, true)]),
            Some(2)
        );
        assert_eq!(
            refused_at(&[intent(1), outcome(1, true), progress(1)]),
            Some(4)
        );
        assert_eq!(
            refused_at(&[intent(1), outcome(1, true), outcome(1, true)]),
            Some(4)
        );
        assert_eq!(
            refused_at(&[intent(1), outcome(1, true), intent(1)]),
            Some(4)
        );
        assert_eq!(
            refused_at(&[
                intent(1),
                outcome(1, true),
                intent(2),
                outcome(2, true),
                intent(1)
            ]),
            Some(6)
        );
    }
}
