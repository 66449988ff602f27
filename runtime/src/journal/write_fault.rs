//! The journal writer's test hook, compiled in only with the `fault-injection` cargo feature:
//! the crash-recovery tests stop a run at every journal write, and a release binary must not
//! read an environment variable that ends it mid-write.

/// Which side of a journal write a test fault happens on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Moment {
    After,
    Before,
}

/// What the test hook does at its write.
#[cfg_attr(not(feature = "fault-injection"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    /// The process ends abruptly, as in a crash.
    Exit(Moment),
    /// The write fails with `ENOSPC`, and so does every later write to the same journal.
    DiskFull,
}

/// Test hook: `CAIRN_FAULT_EXIT_AT_WRITE=k:after` ends the process abruptly right after the k-th
/// journal write of this process, and `k:before` right before it (so an action's effect has
/// happened but its outcome is not recorded), as a crash would. Crash-recovery tests use it to
/// stop a run at every action boundary. `k:enospc` makes the k-th write fail as on a full disk,
/// and with it every later write to that journal (other journals go on being written).
#[cfg(feature = "fault-injection")]
pub(super) fn fault_point(moment: Moment) -> Option<Fault> {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    static FAULT: OnceLock<Option<(u64, Fault)>> = OnceLock::new();
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let (limit, fault) = (*FAULT.get_or_init(|| {
        let value = std::env::var("CAIRN_FAULT_EXIT_AT_WRITE").ok()?;
        let (k, when) = value.split_once(':').unwrap_or((value.as_str(), "after"));
        let fault = match when {
            "before" => Fault::Exit(Moment::Before),
            "enospc" => Fault::DiskFull,
            _ => Fault::Exit(Moment::After),
        };
        Some((k.parse().ok()?, fault))
    }))?;
    if fault == Fault::DiskFull {
        // Writes are counted as they start, so that exactly one is the k-th.
        let started =
            moment == Moment::Before && WRITES.fetch_add(1, Ordering::SeqCst) + 1 == limit;
        return started.then_some(Fault::DiskFull);
    }
    let count = match moment {
        Moment::Before => WRITES.load(Ordering::SeqCst) + 1,
        Moment::After => WRITES.fetch_add(1, Ordering::SeqCst) + 1,
    };
    if fault == Fault::Exit(moment) && count == limit {
        std::process::exit(137);
    }
    None
}

/// Without the `fault-injection` feature (a release build) no write ever fails on purpose.
#[cfg(not(feature = "fault-injection"))]
pub(super) fn fault_point(_moment: Moment) -> Option<Fault> {
    None
}
