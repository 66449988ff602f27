//! Open files for a run over SSH: every SSH host keeps its session (one socket; a `ProxyJump`
//! host also a socket pair and the pipes of its `ssh -W`) open from its first command to the end
//! of the run, so a run on 1,000 hosts needs over 1,000 descriptors, and the usual soft limit is
//! 1,024. The soft `RLIMIT_NOFILE` is raised to the hard limit before such a run, and the run is
//! warned when even that is too few.

/// Descriptors one SSH host may hold: its socket, and for a `ProxyJump` host the other end of the
/// socket pair and the pipes of `ssh -W`.
pub const FDS_PER_HOST: u64 = 4;

/// Descriptors the rest of the process keeps (journals, the run folder, the terminal, libraries).
pub const FDS_RESERVE: u64 = 64;

/// The soft limit is raised to at least this (or to the hard limit, if lower).
const RAISE_AT_LEAST: u64 = 65_536;

/// What the descriptor limit allows for a run of `hosts` SSH hosts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdBudget {
    /// Descriptors the run may need.
    pub needed: u64,
    /// The soft limit in force (after raising it).
    pub soft: u64,
}

impl FdBudget {
    /// The budget of a run of `hosts` SSH hosts under the limit `soft`.
    pub fn new(hosts: usize, soft: u64) -> Self {
        let hosts = u64::try_from(hosts).unwrap_or(u64::MAX);
        Self {
            needed: hosts
                .saturating_mul(FDS_PER_HOST)
                .saturating_add(FDS_RESERVE),
            soft,
        }
    }

    /// A warning when the limit is below what the run may need.
    pub fn warning(&self, hosts: usize, forks: usize) -> Option<String> {
        (self.needed > self.soft).then(|| {
            format!(
                "{hosts} SSH hosts (--forks {forks}) may need {} open files, but the limit is {}: hosts past it fail with `Too many open files`; raise the hard limit (`ulimit -Hn`, `LimitNOFILE=` for a service) or run on fewer hosts at a time",
                self.needed, self.soft
            )
        })
    }
}

/// Raises the soft `RLIMIT_NOFILE` towards the hard limit when `hosts` SSH hosts need more than the
/// soft limit gives; returns a warning when the limit is still too low (or cannot be read).
pub fn prepare_fd_limit(hosts: usize, forks: usize) -> Option<String> {
    if hosts == 0 {
        return None;
    }
    let (soft, hard) = match rlimit::Resource::NOFILE.get() {
        Ok(limits) => limits,
        Err(e) => return Some(format!("cannot read the open-file limit: {e}")),
    };
    let mut budget = FdBudget::new(hosts, soft);
    if let Some(raised) = raise_to(soft, hard, budget.needed) {
        match rlimit::Resource::NOFILE.set(raised, hard) {
            Ok(()) => budget.soft = raised,
            Err(e) => {
                return Some(format!(
                    "cannot raise the open-file limit from {soft} to {raised}: {e}"
                ));
            }
        }
    }
    budget.warning(hosts, forks)
}

/// The soft limit to set, when `needed` descriptors are more than `soft` gives: up to the hard
/// limit, but not to a huge one, since every program the run starts inherits it.
fn raise_to(soft: u64, hard: u64, needed: u64) -> Option<u64> {
    (needed > soft && hard > soft).then(|| hard.min(needed.max(RAISE_AT_LEAST)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thousand_hosts_need_more_than_the_usual_soft_limit() {
        let budget = FdBudget::new(1000, 1024);
        assert_eq!(budget.needed, 1000 * FDS_PER_HOST + FDS_RESERVE);
        let Some(warning) = budget.warning(1000, 64) else {
            panic!("1,024 is too few for 1,000 hosts");
        };
        assert!(warning.contains("limit is 1024"), "{warning}");
        assert!(warning.contains("--forks 64"), "{warning}");
        assert_eq!(FdBudget::new(1000, 524_288).warning(1000, 64), None);
        assert_eq!(FdBudget::new(16, 1024).warning(16, 64), None);
    }

    #[test]
    fn the_soft_limit_goes_towards_the_hard_one_but_not_past_what_is_useful() {
        let needed = FdBudget::new(1000, 0).needed;
        assert_eq!(raise_to(1024, 1_048_576, needed), Some(RAISE_AT_LEAST));
        assert_eq!(raise_to(1024, 20_000, needed), Some(20_000));
        assert_eq!(
            raise_to(1024, 1024, needed),
            None,
            "the hard limit is the soft one"
        );
        assert_eq!(raise_to(65_536, 1_048_576, needed), None, "enough already");
        let huge = FdBudget::new(100_000, 0).needed;
        assert_eq!(raise_to(1024, 1_048_576, huge), Some(huge));
        // The process's own limit is left alone when it is enough (the raise itself is tested
        // end to end, on the `cairn` binary: tests/src/ssh.rs).
        assert_eq!(prepare_fd_limit(0, 64), None);
        assert_eq!(prepare_fd_limit(1, 64), None);
    }
}
