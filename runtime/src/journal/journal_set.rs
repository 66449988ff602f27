//! Every journal of a run, opened for appending before any of them is written.
//!
//! A resume writes decisions and rewinds into several journals before its hosts start. When one
//! of them cannot be opened (a name the file system refuses, a read-only file, too few open
//! files), nothing must have been written to the others: the operator fixes the cause and gives
//! the same answers again, to journals that still say what they said.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{JournalError, JournalWriter};

/// The run's journals, one writer per host, all open.
#[derive(Debug, Default)]
pub struct JournalSet {
    writers: BTreeMap<String, JournalWriter>,
    /// Journals this set created: removed again when the set is dropped while they are still
    /// empty (the run did not start), so a resume refused before its start leaves no empty file.
    created: Vec<PathBuf>,
}

impl JournalSet {
    /// Opens (creating when missing) the journal of every host in `hosts`, each at its path;
    /// the first that cannot be opened fails the whole set, and the ones created are removed.
    pub fn open_all(
        hosts: impl IntoIterator<Item = (String, PathBuf)>,
    ) -> Result<Self, JournalError> {
        let mut set = Self::default();
        for (host, path) in hosts {
            let existed = path.exists();
            match JournalWriter::open(&path) {
                Ok(writer) => {
                    if !existed {
                        set.created.push(path);
                    }
                    set.writers.insert(host, writer);
                }
                Err(error) => {
                    set.discard_created();
                    return Err(error);
                }
            }
        }
        Ok(set)
    }

    /// The open writer of `host`'s journal.
    pub fn get(&mut self, host: &str) -> Option<&mut JournalWriter> {
        self.writers.get_mut(host)
    }

    /// Hands `host`'s writer over to its instance.
    pub fn take(&mut self, host: &str) -> Option<JournalWriter> {
        self.writers.remove(host)
    }

    /// Removes the journals this set created and nothing wrote to (the run did not start).
    fn discard_created(&mut self) {
        for path in self.created.drain(..) {
            if std::fs::metadata(&path).is_ok_and(|m| m.len() == 0) {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
}

impl Drop for JournalSet {
    fn drop(&mut self) {
        self.discard_created();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_that_cannot_be_opened_fails_the_set_and_removes_the_created_ones()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let first = dir.path().join("a.jsonl");
        // A path under a missing folder cannot be opened.
        let second = dir.path().join("missing").join("b.jsonl");
        let result = JournalSet::open_all([("a".to_owned(), first.clone()), ("b".into(), second)]);
        assert!(result.is_err());
        assert!(!first.exists(), "the journal it created was removed");
        let mut set = JournalSet::open_all([("a".to_owned(), first.clone())])?;
        assert!(set.get("a").is_some() && set.take("a").is_some() && set.get("a").is_none());
        Ok(())
    }
}
