//! Open files for a run: every host keeps its journal open from the start of the run to its end,
//! and every SSH host its session (one socket; a `ProxyJump` host also a socket pair and the pipes
//! of its `ssh -W`) from its first command on, so a run on 1,000 hosts needs over 1,000
//! descriptors, and the usual soft limit is 1,024. The soft `RLIMIT_NOFILE` is raised towards the
//! hard limit before such a run; a run whose journals alone do not fit under the hard limit is
//! refused (it would fail host by host with `Too many open files`), and one that may need more
//! than the limit gives is warned.

/// Descriptors every host holds for the whole run: its journal, and the locked file of its host
/// lease (docs/fleet.md) unless its lease is a row of the shared store.
pub const FDS_PER_JOURNAL: u64 = 2;

/// Descriptors one SSH host may hold besides its journal: its socket, and for a `ProxyJump`
/// host the other end of the socket pair and the pipes of `ssh -W`.
pub const FDS_PER_HOST: u64 = 4;

/// Descriptors a host holds while it acts (at most `--forks` hosts at once): a command's pipes on
/// a local host, a simulated host's lock, state and log files.
pub const FDS_PER_FORK: u64 = 4;

/// Descriptors the rest of the process keeps (the run folder, the terminal, libraries).
pub const FDS_RESERVE: u64 = 64;

/// The soft limit is raised to at least this (or to the hard limit, if lower).
const RAISE_AT_LEAST: u64 = 65_536;

/// The hosts of a run, as the descriptors they need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdDemand {
    /// Hosts that keep a journal open (none in check mode), the controller included.
    pub journals: usize,
    /// Hosts reached over SSH.
    pub ssh_hosts: usize,
    /// `--forks`.
    pub forks: usize,
    /// Every host of the run.
    pub hosts: usize,
    /// Whether each host's lease is a locked file of this machine's lease folder (not a row of
    /// the shared store).
    pub lease_files: bool,
}

impl FdDemand {
    /// What the run surely needs: its journals, all open at once.
    pub fn floor(&self) -> u64 {
        let per_journal = if self.lease_files {
            FDS_PER_JOURNAL
        } else {
            FDS_PER_JOURNAL - 1
        };
        count(self.journals)
            .saturating_mul(per_journal)
            .saturating_add(FDS_RESERVE)
    }

    /// What the run may need at most.
    pub fn needed(&self) -> u64 {
        let acting = count(self.forks.min(self.hosts));
        self.floor()
            .saturating_add(count(self.ssh_hosts).saturating_mul(FDS_PER_HOST))
            .saturating_add(acting.saturating_mul(FDS_PER_FORK))
    }

    /// A warning when the limit `soft` is below what the run may need.
    pub fn warning(&self, soft: u64) -> Option<String> {
        let needed = self.needed();
        (needed > soft).then(|| {
            format!(
                "{} hosts ({} over SSH, --forks {}) may need {needed} open files, but the limit is {soft}: hosts past it fail with `Too many open files`; raise the hard limit (`ulimit -Hn`, `LimitNOFILE=` for a service) or run on fewer hosts at a time",
                self.hosts, self.ssh_hosts, self.forks
            )
        })
    }
}

/// Even the hard open-file limit is too low for the run's journals: the run does not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error(
    "this run keeps {journals} journals open and needs at least {floor} open files, but the hard limit (RLIMIT_NOFILE) is {hard}; nothing was run"
)]
#[diagnostic(
    code(cairn::runtime::fd_limit),
    help(
        "raise the hard limit (`ulimit -Hn`, `LimitNOFILE=` for a service) or split the inventory into smaller runs"
    )
)]
pub struct FdLimitError {
    /// Journals the run keeps open.
    pub journals: usize,
    /// Descriptors it needs at least.
    pub floor: u64,
    /// The hard limit.
    pub hard: u64,
}

/// Raises the soft `RLIMIT_NOFILE` towards the hard limit when the run may need more than the
/// soft limit gives. Refuses the run when its journals alone exceed the hard limit; otherwise
/// returns a warning when the limit is still short of the most it may need (or cannot be read).
pub fn prepare_fd_limit(demand: FdDemand) -> Result<Option<String>, FdLimitError> {
    if demand.hosts == 0 {
        return Ok(None);
    }
    let (soft, hard) = match rlimit::Resource::NOFILE.get() {
        Ok(limits) => limits,
        Err(e) => return Ok(Some(format!("cannot read the open-file limit: {e}"))),
    };
    if demand.floor() > hard {
        return Err(FdLimitError {
            journals: demand.journals,
            floor: demand.floor(),
            hard,
        });
    }
    let mut soft_now = soft;
    if let Some(raised) = raise_to(soft, hard, demand.needed()) {
        match rlimit::Resource::NOFILE.set(raised, hard) {
            Ok(()) => soft_now = raised,
            Err(e) => {
                return Ok(Some(format!(
                    "cannot raise the open-file limit from {soft} to {raised}: {e}"
                )));
            }
        }
    }
    Ok(demand.warning(soft_now))
}

/// The soft limit to set, when `needed` descriptors are more than `soft` gives: up to the hard
/// limit, but not to a huge one, since every program the run starts inherits it.
fn raise_to(soft: u64, hard: u64, needed: u64) -> Option<u64> {
    (needed > soft && hard > soft).then(|| hard.min(needed.max(RAISE_AT_LEAST)))
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demand(hosts: usize, ssh_hosts: usize) -> FdDemand {
        FdDemand {
            journals: hosts,
            ssh_hosts,
            forks: 64,
            hosts,
            lease_files: true,
        }
    }

    #[test]
    fn a_thousand_hosts_need_more_than_the_usual_soft_limit() {
        let ssh = demand(1000, 1000);
        assert_eq!(
            ssh.needed(),
            1000 * (FDS_PER_JOURNAL + FDS_PER_HOST) + 64 * FDS_PER_FORK + FDS_RESERVE
        );
        let Some(warning) = ssh.warning(1024) else {
            panic!("1,024 is too few for 1,000 hosts");
        };
        assert!(warning.contains("limit is 1024"), "{warning}");
        assert!(warning.contains("--forks 64"), "{warning}");
        assert_eq!(ssh.warning(524_288), None);
        assert_eq!(demand(16, 16).warning(1024), None);
        // Simulated and local hosts hold their journal: 1,100 of them do not fit in 1,024.
        let sim = demand(1100, 0);
        assert!(sim.floor() > 1024 && sim.warning(1024).is_some());
        assert_eq!(
            FdDemand { journals: 0, ..sim }.floor(),
            FDS_RESERVE,
            "a check opens no journal"
        );
        // On the shared store a lease is a row: 10,000 hosts fit under a hard limit of 20,000.
        let stored = FdDemand {
            lease_files: false,
            ..demand(10_000, 0)
        };
        assert_eq!(stored.floor(), 10_000 + FDS_RESERVE);
        assert!(demand(10_000, 0).floor() > 20_000);
    }

    #[test]
    fn the_soft_limit_goes_towards_the_hard_one_but_not_past_what_is_useful() {
        let needed = demand(1000, 1000).needed();
        assert_eq!(raise_to(1024, 1_048_576, needed), Some(RAISE_AT_LEAST));
        assert_eq!(raise_to(1024, 20_000, needed), Some(20_000));
        assert_eq!(
            raise_to(1024, 1024, needed),
            None,
            "the hard limit is the soft one"
        );
        assert_eq!(raise_to(65_536, 1_048_576, needed), None, "enough already");
        let huge = demand(100_000, 100_000).needed();
        assert_eq!(raise_to(1024, 1_048_576, huge), Some(huge));
        // The process's own limit is left alone when it is enough (the raise itself is tested
        // end to end, on the `cairn` binary: tests/src/ssh.rs, tests/src/hangs.rs).
        assert_eq!(prepare_fd_limit(demand(0, 0)), Ok(None));
        assert_eq!(prepare_fd_limit(demand(1, 1)), Ok(None));
    }
}
