//! The `mlxfwmanager` command lines the builtins run.

/// `mlxfwmanager -d DEV`: the query the guide runs.
pub(crate) fn query(dev: &str) -> Vec<String> {
    vec!["mlxfwmanager".into(), "-d".into(), dev.into()]
}

/// `mlxfwmanager [--online] -u -d DEV -f -y`: update without asking (the guide adds `-f`).
pub(crate) fn update(dev: &str, online: bool) -> Vec<String> {
    let mut argv = vec!["mlxfwmanager".to_owned()];
    if online {
        argv.push("--online".into());
    }
    argv.extend(
        ["-u", "-d", dev, "-f", "-y"]
            .iter()
            .map(|s| (*s).to_owned()),
    );
    argv
}
