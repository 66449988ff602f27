//! The simulated host's logs in its folder, [`COMMAND_LOG`] and the fence's `fenced.log`: one
//! JSON value a line, appended, secrets redacted by the caller, read back without a torn last
//! line.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::SimError;

/// The log of executed commands in a host's directory: one JSON array (argv) per line.
pub const COMMAND_LOG: &str = "commands.log";

/// Appends `value` as one JSON line to the log at `path`; the log's length before and after.
pub(crate) fn append(path: &Path, value: &impl Serialize) -> Result<(u64, u64), SimError> {
    let io = |action, source| SimError::Io {
        action,
        path: path.to_owned(),
        source,
    };
    let mut line = serde_json::to_string(value).map_err(|e| io("log to", e.into()))?;
    line.push('\n');
    let mut log = crate::private_files::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| io("open", e))?;
    log.write_all(line.as_bytes())
        .map_err(|e| io("append to", e))?;
    let after = log.metadata().map(|m| m.len()).map_err(|e| io("read", e))?;
    Ok((after.saturating_sub(line.len() as u64), after))
}

/// Cuts the log at `path` back to its first `len` bytes, when it is longer.
pub(crate) fn truncate(path: &Path, len: u64) -> Result<(), SimError> {
    let io = |action, source| SimError::Io {
        action,
        path: path.to_owned(),
        source,
    };
    let log = match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(log) => log,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(io("open", error)),
    };
    if log.metadata().map_err(|e| io("read", e))?.len() > len {
        log.set_len(len).map_err(|e| io("truncate", e))?;
    }
    Ok(())
}

/// The lines of the log at `path`, oldest first; lines that do not parse (a torn last line)
/// are left out.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}
