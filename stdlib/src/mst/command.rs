//! The `mst` command lines the builtins run.

/// `mst start`.
pub(crate) fn start() -> Vec<String> {
    vec!["mst".into(), "start".into()]
}

/// `mst restart`.
pub(crate) fn restart() -> Vec<String> {
    vec!["mst".into(), "restart".into()]
}

/// `mst status -vv`.
pub(crate) fn status() -> Vec<String> {
    vec!["mst".into(), "status".into(), "-vv".into()]
}
