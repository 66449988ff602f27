//! Appending records to a host's journal, durably.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{JournalError, JournalEvent};

/// Appends records to one host's journal file.
///
/// Intents and outcomes are fsynced before `append` returns; other records are written but not
/// synced, since losing them loses nothing a resume needs.
#[derive(Debug)]
pub struct JournalWriter {
    file: File,
    path: PathBuf,
}

impl JournalWriter {
    /// Opens (creating if needed) the journal at `path` for appending.
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        let file = crate::private_files::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| JournalError::io(path, "cannot open", source))?;
        Ok(Self {
            file,
            path: path.to_owned(),
        })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as a single line; fsyncs it when `durable`.
    pub fn append(&mut self, event: &JournalEvent, durable: bool) -> Result<(), JournalError> {
        fault_point(Moment::Before);
        let mut line = serde_json::to_string(event)
            .map_err(|e| JournalError::io(&self.path, "cannot encode a record for", e.into()))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| JournalError::io(&self.path, "cannot write", source))?;
        if durable {
            self.file
                .sync_data()
                .map_err(|source| JournalError::io(&self.path, "cannot sync", source))?;
        }
        fault_point(Moment::After);
        Ok(())
    }
}

/// Which side of a journal write a test crash happens on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Moment {
    After,
    Before,
}

/// Test hook: `CAIRN_FAULT_EXIT_AT_WRITE=k:after` ends the process abruptly right after the k-th
/// journal write of this process, and `k:before` right before it (so an action's effect has
/// happened but its outcome is not recorded), as a crash would. Crash-recovery tests use it to
/// stop a run at every action boundary.
fn fault_point(moment: Moment) {
    static FAULT: OnceLock<Option<(u64, Moment)>> = OnceLock::new();
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let Some((limit, when)) = *FAULT.get_or_init(|| {
        let value = std::env::var("CAIRN_FAULT_EXIT_AT_WRITE").ok()?;
        let (k, when) = value.split_once(':').unwrap_or((value.as_str(), "after"));
        let when = if when == "before" {
            Moment::Before
        } else {
            Moment::After
        };
        Some((k.parse().ok()?, when))
    }) else {
        return;
    };
    let count = match moment {
        Moment::Before => WRITES.load(Ordering::SeqCst) + 1,
        Moment::After => WRITES.fetch_add(1, Ordering::SeqCst) + 1,
    };
    if moment == when && count == limit {
        std::process::exit(137);
    }
}
