//! Time as a host sees it: the wall clock, the wall clock running faster, or a virtual clock
//! that sleeps instantly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::{Cancel, Cancelled};

/// Where simulated time starts, Mon 2026-11-30 05:00:00 UTC: a new host's virtual clock reads
/// it, and scaled clocks count from it (not from 1970, which keeps their dates plausible: at a
/// factor of 600 a wall-clock year after it reads as six centuries later).
pub(crate) const SIMULATED_EPOCH_MILLIS: u64 = 1_796_014_800_000;

/// The clock of one host.
///
/// Simulated hosts may run on a virtual clock, so that a reboot "taking" two minutes costs
/// nothing in tests and benchmarks: sleeping advances the clock instead of waiting.
#[derive(Debug, Clone, Default)]
pub enum Clock {
    /// The machine's wall clock.
    #[default]
    Real,
    /// Milliseconds since an arbitrary origin, advanced only by sleeping.
    Virtual(Arc<AtomicU64>),
    /// The wall clock running this many times faster: it reads [`SIMULATED_EPOCH_MILLIS`] plus
    /// the wall time since then times the factor, and a sleep takes the duration divided by
    /// it. A simulated lab given the durations of real hardware rehearses a rollout's hours in
    /// minutes, and, unlike virtual clocks, every host of one factor reads one time, so a host
    /// waiting for another (for room in the disruption budget) ages while it waits.
    Scaled(u32),
}

impl Clock {
    /// A virtual clock reading `millis`.
    pub fn virtual_at(millis: u64) -> Self {
        Self::Virtual(Arc::new(AtomicU64::new(millis)))
    }

    /// The current time in milliseconds (since the Unix epoch for the real clock).
    pub fn now_millis(&self) -> u64 {
        match self {
            Self::Real => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            Self::Virtual(millis) => millis.load(Ordering::SeqCst),
            Self::Scaled(factor) => Self::Real
                .now_millis()
                .saturating_sub(SIMULATED_EPOCH_MILLIS)
                .saturating_mul(u64::from(*factor))
                .saturating_add(SIMULATED_EPOCH_MILLIS),
        }
    }

    /// Waits `duration`, or returns early with [`Cancelled`] when the run is stopped.
    pub fn sleep(&self, duration: Duration, cancel: &Cancel) -> Result<(), Cancelled> {
        match self {
            Self::Real => cancel.wait(duration),
            Self::Virtual(millis) => {
                cancel.check()?;
                let step = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
                millis.fetch_add(step, Ordering::SeqCst);
                Ok(())
            }
            Self::Scaled(factor) => cancel.wait(duration / (*factor).max(1)),
        }
    }

    /// How many times faster than the wall this clock runs, for a scaled clock: what turns a
    /// wall-clock wait into the seconds the host's own lines print.
    pub fn scale(&self) -> Option<u32> {
        match self {
            Self::Scaled(factor) => Some(*factor),
            Self::Real | Self::Virtual(_) => None,
        }
    }

    /// Whether sleeping on this clock costs no real time.
    pub fn is_virtual(&self) -> bool {
        matches!(self, Self::Virtual(_))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    #[test]
    fn a_scaled_clock_reads_the_wall_clock_times_its_factor() {
        let (wall, scaled) = (Clock::Real.now_millis(), Clock::Scaled(600).now_millis());
        let expected = (wall - SIMULATED_EPOCH_MILLIS) * 600 + SIMULATED_EPOCH_MILLIS;
        // Both read within a few wall milliseconds of each other.
        assert!(
            scaled >= expected && scaled - expected < 600 * 1000,
            "{scaled} against {expected}"
        );
    }

    #[test]
    fn a_scaled_sleep_takes_the_duration_divided_by_the_factor() {
        let clock = Clock::Scaled(1000);
        let (before, wall) = (clock.now_millis(), Instant::now());
        assert!(
            clock
                .sleep(Duration::from_secs(60), &Cancel::default())
                .is_ok()
        );
        let (passed, took) = (clock.now_millis() - before, wall.elapsed());
        assert!(passed >= 60_000, "{passed} ms passed on the clock");
        assert!(took >= Duration::from_millis(60), "{took:?}");
        assert!(
            took < Duration::from_secs(10),
            "slept {took:?}: the clock did not run faster"
        );
        assert!(!clock.is_virtual(), "a scaled sleep costs real time");
    }
}
