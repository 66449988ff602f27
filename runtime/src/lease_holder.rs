//! Who holds a lease, as the refusal of another run shows it. Apart from `lease/`, since a
//! journal records it (a takeover's `lease` record) and a lease writes to journals.

use serde::{Deserialize, Serialize};

/// A run holding host leases: which run, on which controller, in which process, since when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The controller machine's host name.
    pub controller: String,
    /// The holding process.
    pub pid: u32,
    /// The run's id.
    pub run_id: String,
    /// When it took the lease, milliseconds since the Unix epoch.
    pub since: u64,
    /// The run's state folder, to find it from: `cairn resume --state-dir DIR RUN`.
    pub state_dir: String,
}

impl Holder {
    /// This process, as the holder for run `run_id` kept in `state_dir`.
    pub fn this_process(run_id: &str, state_dir: &std::path::Path) -> Self {
        let controller = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|name| name.trim().to_owned())
            .ok()
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "localhost".into());
        let state_dir = std::fs::canonicalize(state_dir).unwrap_or_else(|_| state_dir.to_owned());
        Self {
            controller,
            pid: std::process::id(),
            run_id: run_id.to_owned(),
            since: crate::Clock::Real.now_millis(),
            state_dir: state_dir.display().to_string(),
        }
    }

    /// The holder as the host's fence records it, `RUN@CONTROLLER:PID`, with any character the
    /// fence does not keep (outside letters, digits and `._-`) as `-`.
    pub fn owner(&self) -> String {
        let clean = |word: &str| -> String {
            word.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "._-".contains(c) {
                        c
                    } else {
                        '-'
                    }
                })
                .collect()
        };
        format!(
            "{}@{}:{}",
            clean(&self.run_id),
            clean(&self.controller),
            self.pid
        )
    }

    /// `run 20261201-101500 (controller jump01, pid 4242, since 10:15:03)`, the time in UTC.
    pub fn describe(&self) -> String {
        let secs = self.since / 1000;
        let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
        format!(
            "run {} (controller {}, pid {}, since {h:02}:{m:02}:{s:02})",
            self.run_id, self.controller, self.pid
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_is_described_as_the_refusal_names_it() {
        let holder = Holder {
            controller: "jump01".into(),
            pid: 4242,
            run_id: "20261201-101500".into(),
            // 2026-12-01 10:15:03 UTC
            since: 1_796_120_103_000,
            state_dir: "/lab/.cairn".into(),
        };
        assert_eq!(
            holder.describe(),
            "run 20261201-101500 (controller jump01, pid 4242, since 10:15:03)"
        );
        assert_eq!(holder.owner(), "20261201-101500@jump01:4242");
        let odd = Holder {
            controller: "jump 01/x".into(),
            ..holder
        };
        assert_eq!(odd.owner(), "20261201-101500@jump-01-x:4242");
    }
}
