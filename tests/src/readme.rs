//! The README's two commands stay true: the first runs the example as written.

use std::path::Path;

use cairn_tests::binary;

fn readme() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join("README.md")).unwrap_or_default()
}

#[test]
fn the_readme_has_exactly_two_set_up_commands() {
    let text = readme();
    let commands: Vec<&str> = text.lines().filter(|l| l.starts_with("cargo ")).collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert!(
        commands[0].starts_with("cargo run --release -p cairn -- run "),
        "{}",
        commands[0]
    );
    assert_eq!(
        commands[1],
        "cargo build --workspace && cargo test --workspace"
    );
    let ci = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.ci/run"))
        .unwrap_or_default();
    assert!(
        ci.contains(commands[1]),
        ".ci/run runs the README's test command"
    );
}

#[test]
fn the_readme_main_job_runs_as_written() {
    let text = readme();
    let Some(line) = text
        .lines()
        .find(|l| l.starts_with("cargo run --release -p cairn -- "))
    else {
        panic!("no main job in the README");
    };
    let args: Vec<&str> = line
        .trim_start_matches("cargo run --release -p cairn -- ")
        .split_whitespace()
        .collect();
    let state = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let output = std::process::Command::new(binary("cairn"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .arg("--state-dir")
        .arg(state.path())
        .args(&args)
        .output()
        .unwrap_or_else(|e| panic!("cairn runs: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Four ESXi hosts, four VMs and vCenter, and the validation table of both pairs.
    assert!(stdout.contains("9 done, 0 failed"), "{stdout}");
    assert!(
        stdout.contains("| compute-01 -> compute-02 | 96.07 | 1.08 |"),
        "{stdout}"
    );
    assert_eq!(
        stdout
            .matches("back after 125.0 s with a new boot id")
            .count(),
        12,
        "{stdout}"
    );
}
