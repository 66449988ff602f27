//! The controller's terminal, shared by the progress display and the debug prompt: while a
//! prompt is open, progress lines wait, so they do not break into what the operator types.

use std::sync::{Mutex, MutexGuard};

static TERMINAL: Mutex<()> = Mutex::new(());

/// Holds the terminal until the guard drops.
pub(crate) fn hold() -> MutexGuard<'static, ()> {
    TERMINAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
