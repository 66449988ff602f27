//! The `mlxfwreset` command lines the builtins run.

fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| (*s).to_owned()).collect()
}

/// `mlxfwreset -d DEV query`: the reset levels, types and syncs the device supports now.
pub(crate) fn query(dev: &str) -> Vec<String> {
    argv(&["mlxfwreset", "-d", dev, "query"])
}

/// `mlxfwreset -d DEV status`: the image and NVCONFIG changes waiting for a reset.
pub(crate) fn status(dev: &str) -> Vec<String> {
    argv(&["mlxfwreset", "-d", dev, "status"])
}

/// `mlxfwreset -d DEV -y reset --level N`.
pub(crate) fn reset(dev: &str, level: u32) -> Vec<String> {
    let level = level.to_string();
    argv(&["mlxfwreset", "-d", dev, "-y", "reset", "--level", &level])
}
