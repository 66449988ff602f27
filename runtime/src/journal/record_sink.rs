//! A second place a journal's records go: the shared store (docs/fleet.md). The folder journal
//! stays what a run reads back from; a sink is where the records must land first, so that a
//! record the store refuses (fenced, or past the controller's deadline) is written nowhere.

use super::JournalError;

/// Where a host's journal records are appended besides its file, ahead of it.
pub trait RecordSink: std::fmt::Debug + Send {
    /// How many records the sink already holds for this journal: the local file's records
    /// beyond them are appended when the sink is attached (a resume's decisions and rewinds,
    /// written before the hosts' leases were taken).
    fn stored(&mut self) -> Result<usize, JournalError>;

    /// Appends one record, `line` as the folder journal writes it (with its newline).
    /// `begins_action` is set for an intent: a controller past its deadline begins none.
    fn append(&mut self, line: &[u8], begins_action: bool) -> Result<(), JournalError>;
}
