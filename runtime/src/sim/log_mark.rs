//! Which lines of a simulated host's command log took effect. The host runs in its
//! controller's process (or under its SSH session), so a controller killed mid-command can
//! leave a logged command whose effect was never saved; the log would then count a reboot that
//! never happened. Before each state save, the mark file beside the log names the log's length
//! with the new state (`after`) and without it (`before`), and a digest of the state's text:
//! the next load cuts the log back to the length the saved state goes with. It is a file of
//! its own, not a field of `state.json`, since the state is the host's and the mark is only
//! the log's bookkeeping.

use std::io::Write;
use std::path::Path;

use super::SimError;

/// The mark file in a host's directory.
pub(crate) const LOG_MARK: &str = "commands.log.mark";

#[derive(serde::Serialize, serde::Deserialize)]
struct LogMark {
    /// The log's length when the state about to be saved was not.
    before: u64,
    /// The log's length with it.
    after: u64,
    /// The SHA-256 of that state's text, hex.
    state: String,
}

/// Before saving the state `text` in `dir`: the log is `after` bytes long with it, `before`
/// without it. Written in place (a file created per save would cost a scan on some file
/// systems, as `SimState::save` says); a torn mark reads as none.
pub(crate) fn write(dir: &Path, before: u64, after: u64, text: &str) -> Result<(), SimError> {
    let path = dir.join(LOG_MARK);
    let io = |action, source| SimError::Io {
        action,
        path: path.clone(),
        source,
    };
    let mark = LogMark {
        before,
        after,
        state: crate::sha256_hex(text.as_bytes()),
    };
    let line = serde_json::to_string(&mark).map_err(|e| io("write", e.into()))?;
    let mut file = crate::private_files::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| io("open", e))?;
    file.write_all(line.as_bytes())
        .map_err(|e| io("write", e))?;
    file.set_len(line.len() as u64)
        .map_err(|e| io("truncate", e))
}

/// The log's length the state `text` (as read from `state.json` in `dir`) goes with; `None`
/// without a readable mark (a host from before marks, a torn one): the log is then kept whole.
pub(crate) fn settled_len(dir: &Path, text: &str) -> Option<u64> {
    let mark = std::fs::read_to_string(dir.join(LOG_MARK)).ok()?;
    let mark: LogMark = serde_json::from_str(&mark).ok()?;
    Some(if mark.state == crate::sha256_hex(text.as_bytes()) {
        mark.after
    } else {
        mark.before
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_state_says_which_length_of_the_log_took_effect() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            settled_len(dir.path(), "old"),
            None,
            "no mark: the log stays whole"
        );
        write(dir.path(), 10, 20, "new").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            settled_len(dir.path(), "new"),
            Some(20),
            "saved: its line took effect"
        );
        assert_eq!(
            settled_len(dir.path(), "old"),
            Some(10),
            "killed before the save"
        );
        // A shorter mark in place of a longer one leaves no tail of the old.
        write(dir.path(), 3, 4, "x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settled_len(dir.path(), "x"), Some(4));
        std::fs::write(dir.path().join(LOG_MARK), "{\"before\":1,").unwrap_or_default();
        assert_eq!(settled_len(dir.path(), "x"), None, "a torn mark is none");
    }
}
