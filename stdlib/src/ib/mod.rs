//! `ib::` builtins.

/// Registers the `ib::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
