//! The host fence: a POSIX `sh` script every changing command can run under on its target, so
//! that a controller whose lease moved cannot act even through an SSH session it still holds
//! (docs/fleet.md, "Fencing on the host").
//!
//! The script ([`FENCE_SOURCE`], `fence.sh` beside this file) keeps the highest epoch it has
//! seen and its owner, serialises cairn's actions with a lock file, refuses a lower epoch,
//! and records `started`/`done` (exit code and output) per step. This module builds the command
//! lines that run it and reads its verdict back. A changing command carries its [`FenceStep`]
//! in its `ExecRequest`; the simulator models the fence itself (`sim/sim_fence.rs`).
//!
//! `fence.sh` uses only `mkdir` and `rename`: epochs, one cairn action at a time, `started`/`done`
//! per step, a done run's records pruned. The command lines here wrap a changing command in it,
//! query a step and prune a run; [`FenceStep`] is the epoch, owner and step id (`RUN.SEQ.AT.N`).
//! `host_context/fence_settle.rs` settles an interrupted action from its record,
//! `host_context/fence_prune.rs` prunes a done host's records, and the SSH transport runs it on
//! real hosts.

mod fence_place;
mod fence_step;
mod fence_verdict;
#[cfg(test)]
mod tests;

pub use fence_place::{FencePlace, FencePlaceError};
pub use fence_step::{FenceStep, claim_step, is_claim, run_word, step_id};
pub use fence_verdict::{FenceVerdict, StepRecord};

/// The fence script as it is written, with its comments.
pub const FENCE_SOURCE: &str = include_str!("fence.sh");

/// The fence script as it is sent to a host, inline with every fenced command: the source
/// without its comment lines and indentation, half its size (the script has no here-document
/// or multi-line string, whose lines this would change).
pub fn fence_script() -> &'static str {
    static SCRIPT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        FENCE_SOURCE
            .lines()
            .map(str::trim_start)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .fold(String::new(), |mut script, line| {
                script.push_str(line);
                script.push('\n');
                script
            })
    });
    &SCRIPT
}

/// `fenced`: the caller's epoch is lower than the host's (or another owner has the same).
pub const FENCED_EXIT: i32 = 241;
/// The step was started before and never finished: its outcome is unknown.
pub const UNFINISHED_EXIT: i32 = 242;
/// The fence folder is in memory (ESXi outside a datastore, a tmpfs or ramfs on Linux).
pub const VOLATILE_EXIT: i32 = 243;
/// The fence cannot write its state.
pub const STATE_EXIT: i32 = 244;
/// The fence was called wrongly.
pub const USAGE_EXIT: i32 = 240;

/// One controller's calls through a host's fence: where it is kept, and at which epoch by
/// which owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    place: FencePlace,
    epoch: u64,
    owner: String,
}

impl Fence {
    /// Calls at `epoch` (the lease's) by `owner` (the controller session, letters, digits and
    /// `._:@-` only, since the host keeps it in a file).
    pub fn new(place: FencePlace, epoch: u64, owner: &str) -> Result<Self, FencePlaceError> {
        fence_place::check_word("owner", owner)?;
        Ok(Self {
            place,
            epoch,
            owner: owner.to_owned(),
        })
    }

    /// The command line that runs `command` as step `step` under the fence, the script sent
    /// inline (`sh -c SCRIPT cairn-fence run ...`), so nothing needs installing first.
    pub fn wrap(&self, step: &str, command: &str) -> Result<String, FencePlaceError> {
        fence_place::check_word("step", step)?;
        let epoch = self.epoch.to_string();
        script(&["run", self.place.dir(), &epoch, &self.owner, step, command])
    }

    /// The command line that checks, before a host's first action, that the fence folder can
    /// keep the fence: on disk (not a tmpfs or ramfs; on ESXi, on a datastore) and writable.
    /// It answers `ok SYSTEM FOLDER-ID` (`uname -s`, and the folder's id: `id` when the folder
    /// had none), or exits 243 or 244 with its `cairn-fence:` line.
    pub fn check(&self, id: &str) -> Result<String, FencePlaceError> {
        fence_place::check_word("id", id)?;
        script(&["check", self.place.dir(), id])
    }

    /// The command line that removes run `run`'s step records, at this fence's epoch by its
    /// owner (refused as `fenced` otherwise), once the run's journal holds their outcomes: a
    /// long-lived host would otherwise keep three small files per changing command for good.
    /// It answers `pruned N` (steps).
    pub fn prune(&self, run: &str) -> Result<String, FencePlaceError> {
        let run = run_word(run);
        let epoch = self.epoch.to_string();
        script(&["prune", self.place.dir(), &epoch, &self.owner, &run])
    }

    /// The command line that asks the fence what it recorded of step `step`.
    pub fn query(&self, step: &str) -> Result<String, FencePlaceError> {
        fence_place::check_word("step", step)?;
        script(&["query", self.place.dir(), step])
    }
}

/// The host's refusal of a claim: it has seen a higher epoch (or the same from another
/// owner), so another controller holds it now and this run must not act on it.
pub fn claim_refused(host: &str, said: String) -> crate::TransportError {
    crate::TransportError::Refused {
        host: host.to_owned(),
        reason: format!("its fence refused this run's claim: {said}"),
        help: Some(
            "another controller took the host over after this run's lease: nothing was run on it; `cairn runs --store` says who drives it"
                .into(),
        ),
    }
}

/// The host's refusal of a prune: another controller holds it now, and its records stay.
pub fn prune_refused(host: &str, said: String) -> crate::TransportError {
    crate::TransportError::Refused {
        host: host.to_owned(),
        reason: format!("its fence kept this run's step records: {said}"),
        help: None,
    }
}

/// How many steps a prune's answer (`pruned N`) says went.
pub fn pruned_steps(stdout: &str) -> Option<u64> {
    stdout.trim().strip_prefix("pruned ")?.parse().ok()
}

/// The command line `sh -c SCRIPT cairn-fence ARGS...`, quoted: the script sent inline.
fn script(args: &[&str]) -> Result<String, FencePlaceError> {
    let mut words = vec!["sh", "-c", fence_script(), "cairn-fence"];
    words.extend_from_slice(args);
    quote_all(&words)
}

fn quote_all(words: &[&str]) -> Result<String, FencePlaceError> {
    let quoted: Result<Vec<_>, _> = words.iter().map(|word| shlex::try_quote(word)).collect();
    quoted
        .map(|quoted| quoted.join(" "))
        .map_err(|_| FencePlaceError::Nul)
}
