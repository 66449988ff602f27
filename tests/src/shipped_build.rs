//! What ships has no test machinery: a bare `cargo build --release` at the root makes the `cairn`
//! command without the journal writer's crash hook (`CAIRN_FAULT_EXIT_AT_WRITE`) or the scratch
//! PostgreSQL server, while the tests' own build (`-p cairn-tests`, part of `--workspace`) has
//! both. `.ci/run` also runs the release binary with the hook's variable set.

use std::path::Path;
use std::process::Command;

/// The test features, as `cargo tree -e features` names them.
const TEST_FEATURES: [&str; 2] = [
    "cairn-runtime feature \"fault-injection\"",
    "cairn-store-pg feature \"scratch-server\"",
];

/// The packages and features a build of `packages` (none: the root's default members) compiles,
/// one a line, from the lock file alone.
fn build_tree(packages: &[&str]) -> String {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(["tree", "--offline", "--locked", "--prefix", "none"])
        .args(["--edges", "features,normal,build"]);
    for package in packages {
        command.args(["--package", package]);
    }
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo tree: {e}"));
    assert!(
        output.status.success(),
        "cargo tree failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_root_build_makes_cairn_without_test_features() {
    let root = build_tree(&[]);
    assert!(
        root.lines().any(|l| l.starts_with("cairn v")),
        "a root build does not make cairn:\n{root}"
    );
    let shipped: Vec<&str> = root
        .lines()
        .filter(|l| l.starts_with("cairn-tests ") || TEST_FEATURES.iter().any(|f| l.starts_with(f)))
        .collect();
    assert!(
        shipped.is_empty(),
        "a root `cargo build` makes test machinery (Cargo.toml's default-members): {shipped:?}"
    );
}

/// The tests' build turns both features on: the check above looks for names that exist.
#[test]
fn the_tests_build_has_the_test_features() {
    let tests = build_tree(&["cairn-tests"]);
    for feature in TEST_FEATURES {
        assert!(
            tests.lines().any(|l| l.starts_with(feature)),
            "`cargo build -p cairn-tests` lacks {feature}"
        );
    }
}
