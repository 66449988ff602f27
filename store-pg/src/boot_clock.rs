//! The controller's own clock for its self-demotion deadline.

use std::time::Duration;

/// A reading of `CLOCK_BOOTTIME`: monotonic, never set back, and (unlike `CLOCK_MONOTONIC`,
/// which `std::time::Instant` reads on Linux) still counting while the machine is suspended. A
/// laptop that sleeps through its TTL must wake up past its deadline, since the database's
/// clock went on and its session expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct BootInstant(Duration);

impl BootInstant {
    /// Now.
    pub fn now() -> Self {
        let time = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
        // The kernel keeps tv_nsec in 0..1e9 and tv_sec non-negative for this clock.
        Self(Duration::new(
            u64::try_from(time.tv_sec).unwrap_or(0),
            u32::try_from(time.tv_nsec).unwrap_or(0),
        ))
    }

    /// This instant plus `by`.
    pub fn after(self, by: Duration) -> Self {
        Self(self.0.saturating_add(by))
    }

    /// How long until `later` from this instant (zero when `later` is not later).
    pub fn until(self, later: Self) -> Duration {
        later.0.saturating_sub(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boot_clock_goes_forward() {
        let first = BootInstant::now();
        std::thread::sleep(Duration::from_millis(20));
        let second = BootInstant::now();
        assert!(second > first);
        assert!(first.until(second) >= Duration::from_millis(20));
        assert_eq!(second.until(first), Duration::ZERO);
    }
}
