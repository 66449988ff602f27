//! The journal: per host, append-only JSON lines, intent before each action and outcome after.
//!
//! See `docs/journal.md` for the format.
//!
//! Files: records (`journal_event.rs`), the writer (`journal_writer.rs`: fsync, the crash hook;
//! `record_sink.rs`, `RecordSink`, the shared store a record goes to before the file), the reader
//! (`host_journal.rs`: torn and corrupt lines; record order in `order.rs`; `recorded_action.rs`,
//! `RecordedAction`, one action as read back, which the reader and the order check both use).

mod host_journal;
mod journal_error;
mod journal_event;
mod journal_set;
mod journal_writer;
mod order;
mod record_sink;
mod recorded_action;
mod write_fault;

pub use host_journal::HostJournal;
pub use journal_error::JournalError;
pub use journal_event::{
    Assume, BatchRecord, DebugChoice, DebugRecord, DecisionRecord, HostEndRecord, HostStatus,
    IntentRecord, JOURNAL_VERSION, JournalEvent, LeaseRecord, LogRecord, OutcomeRecord,
    ProgressRecord, ResumeRecord, RewindRecord, RunHeader, StageRecord, WaitRecord,
};
pub use journal_set::JournalSet;
pub use journal_writer::JournalWriter;
pub use record_sink::RecordSink;
pub use recorded_action::RecordedAction;

/// Milliseconds since the Unix epoch, the one timestamp format of the journal.
pub fn now_millis() -> u64 {
    crate::Clock::Real.now_millis()
}
