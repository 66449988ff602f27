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
    if budget.needed > soft && hard > soft {
        // Up to the hard limit, but not to a huge one: programs the run starts inherit it.
        let raised = hard.min(budget.needed.max(RAISE_AT_LEAST));
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
    fn the_soft_limit_is_raised_towards_the_hard_one_when_needed() {
        let Ok((soft, hard)) = rlimit::Resource::NOFILE.get() else {
            panic!("getrlimit works on Linux");
        };
        // Start from a low soft limit, as on a default system, then ask for 1,000 hosts.
        let low = hard.min(1024);
        assert!(rlimit::Resource::NOFILE.set(low, hard).is_ok());
        let warning = prepare_fd_limit(1000, 64);
        let Ok((raised, _)) = rlimit::Resource::NOFILE.get() else {
            panic!("getrlimit works on Linux");
        };
        let _ = rlimit::Resource::NOFILE.set(soft.max(raised), hard);
        let needed = FdBudget::new(1000, 0).needed;
        if hard >= needed {
            assert_eq!(
                raised,
                hard.min(RAISE_AT_LEAST),
                "soft {low} raised, hard {hard}"
            );
            assert_eq!(warning, None);
        } else {
            assert_eq!(raised, hard);
            assert!(warning.is_some_and(|w| w.contains("Too many open files")));
        }
        assert_eq!(prepare_fd_limit(0, 64), None);
    }
}
