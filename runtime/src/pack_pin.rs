//! The pack a run's runbook belongs to, kept in run.json: its name, version and content id,
//! and the folder of its files (the binary finds it: `repl/src/pack_of_runbook.rs`). A named
//! recipe runs from an unchanging copy of its pack (named by its content id, under the state
//! folder's `packs/`), so a resume after the pack or cairn was upgraded runs the files the run
//! started with, and run.json says which they are.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A run's pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackPin {
    /// The content id of the pack's files (`h1:`, Go's directory hash).
    pub content_id: String,
    /// The folder of the pack's files the run loads.
    pub files: PathBuf,
    /// `namespace/name`.
    pub name: String,
    /// Its version.
    pub version: String,
}
