//! The stop of a roll at its first failed host, as vSphere Lifecycle Manager stops remediating
//! a cluster at the first host that fails: in a `serial` stage, or in a run under a disruption
//! budget, a failed host (with no `--max-fail-percent` allowing more) halts the roll. No further
//! batch starts and no host that is still up goes down; the hosts already down finish the block
//! that brings them back, and every host then stops at the next stage's barrier, resumable.

use std::sync::Mutex;

use crate::Cancelled;

/// What a halted roll's warning and summary say about going on.
pub(crate) const HOW_TO_GO_ON: &str = "fix the failed host and `cairn resume`; `--max-fail-percent N` lets a roll go on past failed hosts";

/// Whether, and why, the roll was halted. Shared by the hosts of a run.
#[derive(Debug, Default)]
pub struct Halt(Mutex<Option<String>>);

impl Halt {
    /// A roll going on.
    pub const fn new() -> Self {
        Self(Mutex::new(None))
    }

    /// Halts the roll for `reason` (`esx02 failed in stage "..."`). Returns whether this call
    /// was the first, so that the halt is announced once; a later reason is not kept.
    pub fn halt(&self, reason: String) -> bool {
        let Ok(mut halted) = self.0.lock() else {
            return false;
        };
        if halted.is_some() {
            return false;
        }
        *halted = Some(reason);
        true
    }

    /// Why the roll was halted, if it was.
    pub fn reason(&self) -> Option<String> {
        self.0.lock().ok().and_then(|halted| halted.clone())
    }

    /// `Err(Cancelled)` once the roll was halted: the host stops here, as on a clean stop.
    pub fn check(&self) -> Result<(), Cancelled> {
        match self.reason() {
            Some(_) => Err(Cancelled),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reason_is_kept_and_every_check_after_it_stops() {
        let halt = Halt::default();
        assert_eq!(halt.check(), Ok(()));
        assert!(halt.halt("esx02 failed".into()));
        assert!(!halt.halt("esx03 failed".into()));
        assert_eq!(halt.reason().as_deref(), Some("esx02 failed"));
        assert_eq!(halt.check(), Err(Cancelled));
    }
}
