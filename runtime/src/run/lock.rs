//! One driver per run: `cairn run` and `cairn resume` hold an OS file lock on the run folder's
//! `lock` file for as long as they drive the run, so a second one refuses before it writes.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::journal::JournalError;

/// The lock file's name in a run folder.
pub(crate) const LOCK_FILE: &str = "lock";

/// A held run lock; dropping it (or the process ending, however it ends) releases it.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Why a run could not be locked.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum LockError {
    /// Another process drives the run.
    #[error("run {run_id} is being driven by pid {pid}")]
    #[diagnostic(
        code(cairn::runtime::run_busy),
        help("wait for it to end (or stop it with Ctrl-C), then resume; nothing was done")
    )]
    Busy {
        /// The run.
        run_id: String,
        /// The holder's process id, as it wrote it (`unknown` if it had not yet).
        pid: String,
    },
    /// The lock file cannot be opened or locked.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Io(#[from] JournalError),
}

impl RunLock {
    /// Locks the run folder `dir` of run `run_id` without waiting, and records this process's
    /// id in the lock file for whoever finds it locked.
    pub fn acquire(dir: &Path, run_id: &str) -> Result<Self, LockError> {
        let path = dir.join(LOCK_FILE);
        let mut file = crate::private_files::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| JournalError::io(&path, "cannot open the run lock", e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(LockError::Busy {
                    run_id: run_id.to_owned(),
                    pid: holder(&path),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(JournalError::io(&path, "cannot lock", e).into());
            }
        }
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| write!(file, "{}", std::process::id()))
            .map_err(|e| JournalError::io(&path, "cannot write", e))?;
        Ok(Self { _file: file })
    }
}

/// The process driving a run, as `cairn runs` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Driver {
    /// Its process id, as it wrote it in the lock file.
    pub pid: String,
    /// Whether it is stopped (SIGSTOP, SIGTSTP, a debugger): alive, holding the run, doing
    /// nothing until it is continued.
    pub stopped: bool,
}

impl Driver {
    /// The process holding run folder `dir`'s lock, if one does. The probe takes a shared lock
    /// for an instant; it writes nothing.
    pub fn of(dir: &Path) -> Option<Self> {
        let path = dir.join(LOCK_FILE);
        let file = File::open(&path).ok()?;
        match file.try_lock_shared() {
            Ok(()) => None,
            Err(std::fs::TryLockError::WouldBlock) => {
                let pid = holder(&path);
                let stopped = is_stopped(&pid);
                Some(Self { pid, stopped })
            }
            Err(std::fs::TryLockError::Error(_)) => None,
        }
    }
}

/// Whether process `pid` is stopped: state `T` (stopped) or `t` (traced) in `/proc/PID/stat`
/// (proc(5)); false where there is no `/proc`.
fn is_stopped(pid: &str) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The command name in parentheses may hold spaces: the state follows the last `)`.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .is_some_and(|state| state == "T" || state == "t")
}

/// The pid the holder wrote; it writes it right after locking, so wait briefly for it.
fn holder(path: &PathBuf) -> String {
    for _ in 0..20 {
        let mut text = String::new();
        if let Ok(mut file) = File::open(path)
            && file.read_to_string(&mut text).is_ok()
            && !text.trim().is_empty()
        {
            return text.trim().to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "unknown".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holders_pid() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let held = RunLock::acquire(dir.path(), "r1")?;
        match RunLock::acquire(dir.path(), "r1") {
            Err(LockError::Busy { run_id, pid }) => {
                assert_eq!(run_id, "r1");
                assert_eq!(pid, std::process::id().to_string());
            }
            other => panic!("expected busy, got {other:?}"),
        }
        assert_eq!(
            Driver::of(dir.path()),
            Some(Driver {
                pid: std::process::id().to_string(),
                stopped: false
            })
        );
        drop(held);
        assert_eq!(Driver::of(dir.path()), None);
        assert!(
            RunLock::acquire(dir.path(), "r1").is_ok(),
            "released on drop"
        );
        Ok(())
    }
}
