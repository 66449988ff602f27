//! What a simulated host remembers between commands: the JSON file `state.json` in its directory.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use super::{SimBoot, SimError};
use crate::Clock;

/// The version of the state file's layout this code reads and writes.
pub(crate) const STATE_FORMAT: u32 = 1;

/// The persisted state of one simulated host.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SimState {
    /// Every boot, oldest first; never empty once created.
    pub(crate) boots: Vec<SimBoot>,
    /// The clock the host was created with: `real`, `virtual` or `real x600`.
    pub(crate) clock: String,
    /// The host's clock when the state was last saved, in milliseconds; a virtual clock resumes
    /// from here.
    pub(crate) clock_millis: u64,
    /// While a reboot is under way: when the host comes back up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) down_until_millis: Option<u64>,
    /// One-shot faults that already fired, as `fail_once:PROGRAM` or `drop_once:PROGRAM`.
    #[serde(default)]
    pub(crate) faults_fired: BTreeSet<String>,
    /// The virtual file system: absolute path to contents.
    #[serde(default)]
    pub(crate) files: BTreeMap<String, String>,
    /// The layout version, [`STATE_FORMAT`].
    pub(crate) format: u32,
    /// The host's name.
    pub(crate) host: String,
    /// A reboot that will never come back (`fault_reboot_hang`) is under way.
    #[serde(default)]
    pub(crate) hung: bool,
    /// Named flags that tools set and clear.
    #[serde(default)]
    pub(crate) marks: BTreeSet<String>,
    /// The `sim:` options the tools' initialisation read, with their values then (`None`:
    /// not given): the options the host's hardware and first state were made from, which an
    /// inventory must give alike to reach this host (a state made before it was kept: none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) made_from: BTreeMap<String, Option<String>>,
    /// The model the host was created with.
    pub(crate) model: String,
    /// Each tool's own state, by tool name.
    #[serde(default)]
    pub(crate) tools: BTreeMap<String, serde_json::Value>,
}

impl SimState {
    /// A host that has not booted yet.
    pub(crate) fn new(host: &str, model: &str, clock: &Clock, millis: u64) -> Self {
        Self {
            boots: Vec::new(),
            clock: clock_name(clock),
            clock_millis: millis,
            down_until_millis: None,
            faults_fired: BTreeSet::new(),
            files: BTreeMap::new(),
            format: STATE_FORMAT,
            host: host.into(),
            hung: false,
            made_from: BTreeMap::new(),
            marks: BTreeSet::new(),
            model: model.into(),
            tools: BTreeMap::new(),
        }
    }

    /// Reads the state file, or `None` when there is none yet.
    pub(crate) fn load(path: &Path) -> Result<Option<Self>, SimError> {
        Ok(Self::load_text(path)?.map(|(state, _)| state))
    }

    /// [`SimState::load`], with the text it was read from.
    pub(crate) fn load_text(path: &Path) -> Result<Option<(Self, String)>, SimError> {
        let text = match read_whole(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(SimError::Io {
                    action: "read",
                    path: path.into(),
                    source,
                });
            }
        };
        let corrupt = |reason: String| SimError::CorruptState {
            path: path.into(),
            reason,
        };
        let state: Self = serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
        if state.format != STATE_FORMAT {
            return Err(corrupt(format!(
                "format {} is not the supported format {STATE_FORMAT}",
                state.format
            )));
        }
        if state.boots.is_empty() {
            return Err(corrupt("it records no boot".into()));
        }
        Ok(Some((state, text)))
    }

    /// Writes the state file, as [`SimState::save_text`] does.
    #[cfg(test)]
    pub(crate) fn save(&self, path: &Path) -> Result<(), SimError> {
        Self::save_text(path, &self.to_text(path)?)
    }

    /// The text of the state file at `path`.
    pub(crate) fn to_text(&self, path: &Path) -> Result<String, SimError> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| SimError::CorruptState {
            path: path.into(),
            reason: format!("cannot serialize: {e}"),
        })?;
        text.push('\n');
        Ok(text)
    }

    /// Writes the state file's `text` ([`SimState::to_text`]) atomically: the new state goes
    /// into `state.json.tmp`, which then trades places with `state.json` in one rename
    /// (`RENAME_EXCHANGE`), so the old state
    /// becomes the next save's temporary file. The write holds an exclusive lock on the file
    /// it writes, and readers a shared one on the file they read ([`read_whole`]), so that no
    /// reader sees a state half overwritten. No file is created or deleted once both exist:
    /// on ext4 without a journal, each new file costs a scan past the recently deleted ones,
    /// which at tens of thousands of saves a run (a fabric's all-pairs matrix) dominated the
    /// run's time. A kill during the write leaves only the temporary file torn. Where the
    /// exchange is not supported, a plain rename over the old file.
    pub(crate) fn save_text(path: &Path, text: &str) -> Result<(), SimError> {
        let temporary = path.with_extension("json.tmp");
        let io = |action, source| SimError::Io {
            action,
            path: temporary.clone(),
            source,
        };
        let mut file = crate::private_files::options()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&temporary)
            .map_err(|e| io("create", e))?;
        // The temporary file was `state.json` until the last save: a peer that opened it then
        // may still be reading it, under a shared lock (`read_whole`), so wait for it first.
        file.lock().map_err(|e| io("lock", e))?;
        file.write_all(text.as_bytes())
            .map_err(|e| io("write", e))?;
        file.set_len(text.len() as u64)
            .map_err(|e| io("truncate", e))?;
        drop(file);
        super::exchange::replace(&temporary, path).map_err(|source| SimError::Io {
            action: "replace",
            path: path.into(),
            source,
        })
    }

    /// The current boot.
    pub(crate) fn current_boot(&self) -> Option<&SimBoot> {
        self.boots.last()
    }
}

/// A state file's text, read whole under a shared lock on the file: a save on its host waits
/// for the read to end before overwriting the file in place (see [`SimState::save`]). Any
/// reader of another host's `state.json` reads it this way.
pub fn read_whole(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    open_to_read(path)?.read_to_string(&mut text)?;
    Ok(text)
}

/// A state file opened for reading, under a shared lock until it is closed.
fn open_to_read(path: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::open(path)?;
    file.lock_shared()?;
    Ok(file)
}

/// The name the state file uses for a kind of clock: `real`, `virtual`, or `real x600` for the
/// real clock run 600 times faster (whose times are not the real clock's).
pub(crate) fn clock_name(clock: &Clock) -> String {
    match clock {
        Clock::Real => "real".into(),
        Clock::Virtual(_) => "virtual".into(),
        Clock::Scaled(factor) => format!("real x{factor}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of another host's state never sees one half overwritten: a reader that has
    /// read part of `state.json` holds it while the host saves twice (the second save writes
    /// into that same file, exchanged out by the first), and the rest it reads is still the
    /// state it started.
    #[test]
    fn a_reader_part_way_through_a_state_holds_it_while_the_host_saves_in_place() {
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("state.json");
        let state = |letter: char| {
            let mut s = SimState::new("node01", "linux", &Clock::Real, 0);
            s.files.insert(
                "/f".into(),
                std::iter::repeat_n(letter, 64 * 1024).collect(),
            );
            s
        };
        // The first save is a plain rename, the second an exchange that leaves `a` behind as
        // the temporary file the next save writes into.
        for letter in ['z', 'a'] {
            state(letter).save(&path).unwrap_or_else(|e| panic!("{e}"));
        }
        let mut reader = open_to_read(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut text = vec![0; 4096];
        reader
            .read_exact(&mut text)
            .unwrap_or_else(|e| panic!("{e}"));
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                for letter in ['b', 'c'] {
                    state(letter).save(&path).unwrap_or_else(|e| panic!("{e}"));
                }
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            !writer.is_finished(),
            "the save into the file being read waits"
        );
        reader
            .read_to_end(&mut text)
            .unwrap_or_else(|e| panic!("{e}"));
        drop(reader);
        let read: SimState = serde_json::from_slice(&text).unwrap_or_else(|e| panic!("torn: {e}"));
        assert_eq!(read.files.get("/f"), state('a').files.get("/f"));
        assert!(writer.join().is_ok());
        let last: SimState = serde_json::from_str(&read_whole(&path).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(last.files.get("/f"), state('c').files.get("/f"));
    }
}
