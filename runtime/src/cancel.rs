//! Stopping a run cleanly: a flag every host checks between actions and while it waits.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::InFlight;

/// The run was stopped (Ctrl-C) while this host waited or before its next action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("the run was stopped")]
#[diagnostic(
    code(cairn::runtime::cancelled),
    help("`cairn resume` continues where it stopped")
)]
pub struct Cancelled;

/// A shared stop flag, and the actions the run is in the middle of. Cloning shares both.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<(Mutex<bool>, Condvar)>, InFlight);

impl Cancel {
    /// Stops the run: wakes every waiting host.
    pub fn cancel(&self) {
        let (flag, wake) = &*self.0;
        if let Ok(mut stopped) = flag.lock() {
            *stopped = true;
        }
        wake.notify_all();
    }

    /// Clears the flag, for a REPL that goes on after an interrupted line.
    pub fn reset(&self) {
        if let Ok(mut stopped) = self.0.0.lock() {
            *stopped = false;
        }
    }

    /// Whether the run was stopped.
    pub fn is_cancelled(&self) -> bool {
        self.0.0.lock().map_or(true, |stopped| *stopped)
    }

    /// `Err(Cancelled)` once the run was stopped.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// The actions hosts are performing: what a stop at once would leave unknown.
    pub fn in_flight(&self) -> &InFlight {
        &self.1
    }

    /// Waits `duration` unless the run is stopped first.
    pub fn wait(&self, duration: Duration) -> Result<(), Cancelled> {
        let (flag, wake) = &*self.0;
        let Ok(stopped) = flag.lock() else {
            return Err(Cancelled);
        };
        match wake.wait_timeout_while(stopped, duration, |stopped| !*stopped) {
            Ok((stopped, _)) if !*stopped => Ok(()),
            _ => Err(Cancelled),
        }
    }
}
