//! The `mlxconfig` command lines the builtins run.

/// `mlxconfig -d DEV -e query`: default, current and next-boot values.
pub(crate) fn query(dev: &str) -> Vec<String> {
    ["mlxconfig", "-d", dev, "-e", "query"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

/// `mlxconfig -d DEV -y set KEY=VALUE...`.
pub(crate) fn set(dev: &str, pairs: &[(String, String)]) -> Vec<String> {
    let mut argv: Vec<String> = ["mlxconfig", "-d", dev, "-y", "set"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    argv.extend(pairs.iter().map(|(k, v)| format!("{k}={v}")));
    argv
}
