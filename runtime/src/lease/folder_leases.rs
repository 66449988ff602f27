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

/// What a lease file holds: its holder while held (none once given back), and the last epoch
/// given, which stays so that the next one is higher.
#[derive(serde::Serialize, serde::Deserialize)]
struct LeaseFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    holder: Option<Holder>,
    identity: String,
    #[serde(default)]
    epoch: u64,
}

/// A lease held through an open, locked lease file.
#[derive(Debug)]
struct FolderLease {
    file: File,
    identity: String,
    epoch: u64,
    owner: String,
}

impl HeldLease for FolderLease {
    fn epoch(&self) -> Option<u64> {
        Some(self.epoch)
    }

    fn owner(&self) -> Option<String> {
        Some(self.owner.clone())
    }
}

impl Drop for FolderLease {
    fn drop(&mut self) {
        // The holder is cleared, so the next taker finds it given back rather than taken over;
        // the epoch stays, so the next taker's is higher. The lock goes with the file.
        let given_back = LeaseFile {
            holder: None,
            identity: std::mem::take(&mut self.identity),
            epoch: self.epoch,
        };
        let text = serde_json::to_string(&given_back).unwrap_or_default();
        let _ = write_whole(&mut self.file, &text);
    }
}

/// The epoch of a lease taken at `now_millis` after one that had `previous`: at least the take
/// time, so it grows across lease folders and machines whose clocks agree, and always above the
/// previous one, so it grows whatever the clock does.
pub(super) fn next_epoch(previous: u64, now_millis: u64) -> u64 {
    now_millis.max(previous.saturating_add(1))
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
                return Ok(Taken::Held(
                    read(&mut file).and_then(|l| l.holder).unwrap_or_else(
                        // Locked, not yet written: its holder is starting this very moment.
                        || Holder {
                            controller: "this machine".into(),
                            pid: 0,
                            run_id: "(starting)".into(),
                            since: crate::Clock::Real.now_millis(),
                            state_dir: String::new(),
                        },
                    ),
                ));
            }
            Err(std::fs::TryLockError::Error(source)) => return Err(error("lock")(source)),
        }
        let previous = read(&mut file);
        let epoch = next_epoch(
            previous.as_ref().map_or(0, |p| p.epoch),
            crate::Clock::Real.now_millis(),
        );
        let lease = LeaseFile {
            holder: Some(holder.clone()),
            identity: identity.to_owned(),
            epoch,
        };
        let text = serde_json::to_string(&lease).map_err(|e| error("encode")(e.into()))?;
        write_whole(&mut file, &text)
            .and_then(|()| file.sync_data())
            .map_err(error("write"))?;
        let held = Box::new(FolderLease {
            file,
            identity: identity.to_owned(),
            epoch,
            owner: holder.owner(),
        });
        Ok(match previous.and_then(|p| p.holder) {
            Some(previous) => Taken::TakenOver(held, previous),
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

/// Replaces the file's content with `text`.
fn write_whole(file: &mut File, text: &str) -> std::io::Result<()> {
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(text.as_bytes())
}

/// What a lease file holds, if it holds a record.
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
            holder: Some(Holder {
                pid: 999_999,
                ..holder("dead")
            }),
            identity: "local".into(),
            epoch: 7,
        };
        std::fs::write(leases.path("local"), serde_json::to_string(&dead)?)?;
        match leases.try_take("local", &holder("new"))? {
            Taken::TakenOver(lease, from) => {
                assert_eq!((from.run_id.as_str(), from.pid), ("dead", 999_999));
                assert!(lease.epoch() > Some(7));
            }
            other => panic!("taken over: {other:?}"),
        }
        Ok(())
    }

    #[test]
    fn each_taker_gets_a_higher_epoch_than_the_last_even_after_a_give_back()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let leases = FolderLeases::at(dir.path());
        let mut last = 0;
        for run in ["a", "b", "c"] {
            let (Taken::Free(lease) | Taken::TakenOver(lease, _)) =
                leases.try_take("sim:/lab/n1", &holder(run))?
            else {
                panic!("free for {run}");
            };
            let epoch = lease.epoch().unwrap_or(0);
            assert!(epoch > last, "{epoch} after {last}");
            assert!(
                lease
                    .owner()
                    .is_some_and(|o| o.starts_with(&format!("{run}@")))
            );
            last = epoch;
        }
        Ok(())
    }

    #[test]
    fn an_epoch_is_at_least_the_take_time_and_above_the_previous() {
        assert_eq!(next_epoch(5, 1_000), 1_000);
        assert_eq!(next_epoch(2_000, 1_000), 2_001);
        assert_eq!(next_epoch(u64::MAX, 0), u64::MAX);
    }
}
