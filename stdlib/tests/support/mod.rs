//! Helpers shared by the stdlib's integration tests and benches.

pub mod fixtures;
pub mod hostile;
