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

#[test]
fn the_readme_and_help_list_the_same_exit_codes() {
    let text = readme();
    let table: Vec<(String, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("| code | meaning |"))
        .skip(2)
        .take_while(|l| l.starts_with("| "))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            Some((cells.first()?.to_string(), cells.get(1)?.to_string()))
        })
        .collect();
    let codes: Vec<&str> = table.iter().map(|(code, _)| code.as_str()).collect();
    assert_eq!(codes, ["0", "1", "2", "3", "130"], "{text}");
    let help = std::process::Command::new(binary("cairn"))
        .arg("--help")
        .output()
        .unwrap_or_else(|e| panic!("cairn --help: {e}"));
    let help = String::from_utf8_lossy(&help.stdout);
    for (code, meaning) in &table {
        let line = help
            .lines()
            .find(|l| l.split_whitespace().next() == Some(code))
            .unwrap_or_else(|| panic!("`cairn --help` has no exit code {code}:\n{help}"));
        // The help says each code's meaning in the README's words, shortened past a `(` or `:`.
        let short = meaning
            .split([' ', '('])
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            line.contains(short.trim()),
            "{code}: `{line}` vs `{meaning}`"
        );
    }
}
