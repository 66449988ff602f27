//! `net::` builtins.

/// Registers the `net::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
