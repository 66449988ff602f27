//! The `flint` command lines the builtins run.

/// `flint -d DEV query`.
pub(crate) fn query(dev: &str) -> Vec<String> {
    vec!["flint".into(), "-d".into(), dev.into(), "query".into()]
}
