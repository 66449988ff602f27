//! A host's sessions: the first from its header, one more from each `resume` record, each
//! with how it ended and what failed in it, so a resumed run keeps its earlier failures.

use std::collections::HashMap;

use cairn_runtime::journal::{HostJournal, HostStatus, JournalEvent};

use crate::host_model::event_at;

/// One session of a host.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSpan {
    /// Its header or resume record.
    pub start: u64,
    /// Its last record.
    pub end: u64,
    /// How it ended, from its `host_end` record; `None` when it has none (the process was
    /// killed or crashed, or the host is still waiting for a decision).
    pub status: Option<HostStatus>,
    /// The `host_end` record's error.
    pub error: Option<String>,
    /// Each action that failed in it: `builtin: error`.
    pub failed_actions: Vec<String>,
}

/// The sessions of `journal`, in order.
pub(crate) fn sessions(journal: &HostJournal) -> Vec<SessionSpan> {
    let mut sessions: Vec<SessionSpan> = Vec::new();
    let mut builtins: HashMap<u64, &str> = HashMap::new();
    for (_, event) in &journal.events {
        let at = event_at(event);
        if matches!(event, JournalEvent::Header(_) | JournalEvent::Resume(_)) || sessions.is_empty()
        {
            sessions.push(SessionSpan {
                start: at,
                end: at,
                status: None,
                error: None,
                failed_actions: Vec::new(),
            });
        }
        let Some(session) = sessions.last_mut() else {
            continue;
        };
        session.end = session.end.max(at);
        match event {
            JournalEvent::Intent(intent) => {
                builtins.insert(intent.seq, &intent.builtin);
            }
            JournalEvent::Outcome(outcome) if !outcome.ok => {
                let builtin = builtins.get(&outcome.seq).copied().unwrap_or("an action");
                let error = outcome.error.as_deref().unwrap_or("failed");
                session.failed_actions.push(format!("{builtin}: {error}"));
            }
            JournalEvent::HostEnd(end) => {
                session.status = Some(end.status);
                session.error.clone_from(&end.error);
            }
            _ => {}
        }
    }
    sessions
}
