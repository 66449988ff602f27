//! `vhpc::` builtins.

/// Registers the `vhpc::` builtins (none yet).
pub fn install(_engine: &mut rhai::Engine) {}
