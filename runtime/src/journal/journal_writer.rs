//! Appending records to a host's journal, durably.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::write_fault::{Fault, Moment, fault_point};
use super::{JournalError, JournalEvent, RecordSink};

/// Appends records to one host's journal file.
///
/// Intents and outcomes are fsynced before `append` returns (committed to the store instead,
/// when the run has one); other records are written but not synced, since losing them loses
/// nothing a resume needs. A write that fails (a full disk) is
/// cut off again, so that the journal never holds half a line followed by whole ones.
#[derive(Debug)]
pub struct JournalWriter {
    file: File,
    /// The file's length after the last whole record.
    len: u64,
    path: PathBuf,
    /// Set by the test hook once this journal's disk is "full": every later write fails too.
    full: bool,
    /// The shared store, when the run has one: each record goes there first.
    sink: Option<Box<dyn RecordSink>>,
}

impl JournalWriter {
    /// Opens (creating if needed) the journal at `path` for appending.
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        let file = crate::private_files::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| JournalError::io(path, "cannot open", source))?;
        let len = file
            .metadata()
            .map_err(|source| JournalError::io(path, "cannot read the length of", source))?
            .len();
        Ok(Self {
            file,
            len,
            path: path.to_owned(),
            full: false,
            sink: None,
        })
    }

    /// Sends every later record to `sink` before the file. The file's records that the sink
    /// does not hold yet (written before it was attached: a resume's decisions and rewinds)
    /// are appended to it first, so the two hold the same lines.
    pub fn attach(&mut self, mut sink: Box<dyn RecordSink>) -> Result<(), JournalError> {
        // A new journal has nothing the sink could lack: asking it was a round trip per host
        // before a fresh run's first record (64 in a row, a fifth of a 64-host fan-out's time).
        if self.len == 0 {
            self.sink = Some(sink);
            return Ok(());
        }
        let stored = sink.stored()?;
        let text = std::fs::read(&self.path)
            .map_err(|source| JournalError::io(&self.path, "cannot read journal", source))?;
        for line in text.split_inclusive(|byte| *byte == b'\n').skip(stored) {
            if line.ends_with(b"\n") {
                sink.append(line, false)?;
            }
        }
        self.sink = Some(sink);
        Ok(())
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as a single line; fsyncs it when `durable`.
    pub fn append(&mut self, event: &JournalEvent, durable: bool) -> Result<(), JournalError> {
        let mut line = serde_json::to_string(event)
            .map_err(|e| JournalError::io(&self.path, "cannot encode a record for", e.into()))?;
        line.push('\n');
        if fault_point(Moment::Before) == Some(Fault::DiskFull) || self.full {
            self.full = true;
            let full = std::io::Error::from_raw_os_error(28);
            return Err(JournalError::io(&self.path, "cannot write", full));
        }
        if let Some(sink) = &mut self.sink {
            // The store decides first: a record it refuses is not written to the file either.
            sink.append(line.as_bytes(), matches!(event, JournalEvent::Intent(_)))?;
        }
        if let Err(source) = self.file.write_all(line.as_bytes()) {
            // Best effort: a torn line at the end would be dropped on resume anyway, but a
            // whole record written after it (once space is back) would make it corrupt.
            let _ = self.file.set_len(self.len);
            return Err(JournalError::io(&self.path, "cannot write", source));
        }
        // With a sink the store's commit is what makes the record durable: the file is then a
        // working copy, written again from the store by every resume and read (`cairn resume
        // --store`, `copy_runs`), so syncing it too only doubled each record's wait.
        if durable && self.sink.is_none() {
            self.file
                .sync_data()
                .map_err(|source| JournalError::io(&self.path, "cannot sync", source))?;
        }
        self.len += line.len() as u64;
        fault_point(Moment::After);
        Ok(())
    }
}
