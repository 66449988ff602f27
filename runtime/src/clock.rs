//! Time as a host sees it: the wall clock, or a virtual clock that sleeps instantly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::{Cancel, Cancelled};

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
        }
    }

    /// Whether sleeping on this clock costs no real time.
    pub fn is_virtual(&self) -> bool {
        matches!(self, Self::Virtual(_))
    }
}
