//! Host leases in a folder of this machine: one file per host, held by an OS file lock.
//!
//! The lock is the lease: the OS gives it back when the holding process ends, however it ends,
//! so a holder that died is known to be gone (not guessed from a pid that may have been
//! reused). The file's content names the holder for a refusal, and is cleared when the lease is
//! given back; content found under a free lock is a holder that died holding it: a takeover.
//! Files are never removed, since removing a lock file lets two processes lock two files of the
//! same name.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::{HeldLease, Holder, LeaseError, LeaseStore, Taken};

/// The variable naming the lease folder (tests give each lab its own).
pub const LEASE_DIR_VAR: &str = "CAIRN_LEASE_DIR";

/// Host leases in one folder of this machine, shared by every user's runs on it.
#[derive(Debug, Clone)]
pub struct FolderLeases {
    dir: PathBuf,
}

/// What a lease file holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct LeaseFile {
    holder: Holder,
    identity: String,
}

/// A lease held through an open, locked lease file.
#[derive(Debug)]
struct FolderLease {
    file: File,
}

impl HeldLease for FolderLease {}

impl Drop for FolderLease {
    fn drop(&mut self) {
        // Cleared, so the next taker finds it given back rather than taken over; the lock goes
        // with the file.
        let _ = self.file.set_len(0);
    }
}

impl FolderLeases {
    /// The folder `CAIRN_LEASE_DIR` names, else `/run/lock/cairn` (the machine's lock folder,
    /// emptied at boot, when every holder is gone anyway), else one in the temporary folder.
    pub fn from_env() -> Self {
        let dir = std::env::var_os(LEASE_DIR_VAR)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let lock = Path::new("/run/lock");
                if lock.is_dir() {
                    lock.join("cairn")
                } else {
                    std::env::temp_dir().join("cairn-leases")
                }
            });
        Self { dir }
    }

    /// Leases kept in `dir`.
    pub fn at(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
        }
    }

    /// The lease file of `identity`: hashed, since identities hold paths and odd characters.
    fn path(&self, identity: &str) -> PathBuf {
        let digest = Sha256::digest(identity.as_bytes());
        let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}.lease"))
    }

    /// Creates the folder, writable by every user of the machine (sticky, as `/tmp` is).
    fn create_dir(&self) -> Result<(), LeaseError> {
        let error = |source| LeaseError {
            action: "create the folder of",
            path: self.dir.display().to_string(),
            source,
        };
        if self.dir.is_dir() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir).map_err(error)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o1777))
                .map_err(error)?;
        }
        Ok(())
    }
}

impl LeaseStore for FolderLeases {
    fn try_take(&self, identity: &str, holder: &Holder) -> Result<Taken, LeaseError> {
        self.create_dir()?;
        let path = self.path(identity);
        let error = |action| {
            let path = path.display().to_string();
            move |source| LeaseError {
                action,
                path,
                source,
            }
        };
        let mut file = open(&path).map_err(error("open"))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Ok(Taken::Held(read(&mut file).map_or_else(
                    // Locked, not yet written: its holder is starting this very moment.
                    || Holder {
                        controller: "this machine".into(),
                        pid: 0,
                        run_id: "(starting)".into(),
                        since: crate::Clock::Real.now_millis(),
                        state_dir: String::new(),
                    },
                    |lease| lease.holder,
                )));
            }
            Err(std::fs::TryLockError::Error(source)) => return Err(error("lock")(source)),
        }
        let previous = read(&mut file);
        let lease = LeaseFile {
            holder: holder.clone(),
            identity: identity.to_owned(),
        };
        let text = serde_json::to_string(&lease).map_err(|e| error("encode")(e.into()))?;
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(text.as_bytes()))
            .and_then(|()| file.sync_data())
            .map_err(error("write"))?;
        let held = Box::new(FolderLease { file });
        Ok(match previous {
            Some(previous) => Taken::TakenOver(held, previous.holder),
            None => Taken::Free(held),
        })
    }
}

/// Opens (creating, writable by every user) the lease file at `path`.
fn open(path: &Path) -> std::io::Result<File> {
    let existed = path.exists();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    #[cfg(unix)]
    if !existed {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o666))?;
    }
    Ok(file)
}

/// The holder a lease file names, if it names one.
fn read(file: &mut File) -> Option<LeaseFile> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(run: &str) -> Holder {
        Holder::this_process(run, Path::new("/nonexistent"))
    }

    #[test]
    fn a_held_lease_refuses_a_second_taker_and_is_free_once_given_back()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let leases = FolderLeases::at(&dir.path().join("leases"));
        let Taken::Free(first) = leases.try_take("sim:/lab/n1", &holder("a"))? else {
            panic!("free at first");
        };
        match leases.try_take("sim:/lab/n1", &holder("b"))? {
            Taken::Held(by) => assert_eq!(by.run_id, "a"),
            other => panic!("held by a: {other:?}"),
        }
        assert!(matches!(
            leases.try_take("sim:/lab/n2", &holder("b"))?,
            Taken::Free(_)
        ));
        drop(first);
        assert!(matches!(
            leases.try_take("sim:/lab/n1", &holder("b"))?,
            Taken::Free(_)
        ));
        Ok(())
    }

    #[test]
    fn a_lease_whose_holder_died_holding_it_is_taken_over_naming_it()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let leases = FolderLeases::at(dir.path());
        // What a killed holder leaves: its record, and no lock.
        let dead = LeaseFile {
            holder: Holder {
                pid: 999_999,
                ..holder("dead")
            },
            identity: "local".into(),
        };
        std::fs::write(leases.path("local"), serde_json::to_string(&dead)?)?;
        match leases.try_take("local", &holder("new"))? {
            Taken::TakenOver(_, from) => {
                assert_eq!((from.run_id.as_str(), from.pid), ("dead", 999_999))
            }
            other => panic!("taken over: {other:?}"),
        }
        Ok(())
    }
}
