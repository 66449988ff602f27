//! Every command in a `sh` block of README.md and docs/*.md runs as written, so the docs never
//! go stale: each file's commands run in order in a fresh copy of the shipped runbooks, with
//! the built `cairn` first on PATH. A command exits 0 unless it ends with `# exits N`.
//! `cargo` lines (building cairn itself) are left to tests/src/readme.rs and CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cairn_tests::{Lab, binary};

/// One documented command: its text, where it is, and the exit code it must give.
#[derive(Debug)]
struct Example {
    command: String,
    line: usize,
    exit: i32,
}

/// The commands of the `sh` blocks of a Markdown text: a here-document runs with its lines.
fn examples(markdown: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut in_sh = false;
    let mut heredoc: Option<(String, Example)> = None;
    for (index, line) in markdown.lines().enumerate() {
        if let Some((end, mut example)) = heredoc.take() {
            example.command.push('\n');
            example.command.push_str(line);
            if line.trim() == end {
                found.push(example);
            } else {
                heredoc = Some((end, example));
            }
            continue;
        }
        if line.starts_with("```") {
            in_sh = line.trim() == "```sh";
            continue;
        }
        if !in_sh || line.trim().is_empty() || line.starts_with("cargo ") {
            continue;
        }
        let (command, exit) = match line.split_once("# exits ") {
            Some((command, code)) => (command.trim_end(), code.trim().parse().unwrap_or(-1)),
            None => (line, 0),
        };
        let example = Example {
            command: command.to_owned(),
            line: index + 1,
            exit,
        };
        match line
            .split_once("<<'")
            .and_then(|(_, rest)| rest.split_once('\''))
        {
            Some((end, _)) => heredoc = Some((end.to_owned(), example)),
            None => found.push(example),
        }
    }
    found
}

fn docs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap_or_else(|e| panic!("docs/: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

/// Runs a file's examples in order in a fresh lab; returns what went wrong.
fn run_examples(file: &Path, examples: &[Example]) -> Vec<String> {
    let lab = Lab::shipped();
    let bin = binary("cairn");
    let bin_dir = bin.parent().unwrap_or_else(|| Path::new("."));
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut problems = Vec::new();
    for example in examples {
        let output = Command::new("bash")
            .arg("-c")
            .arg(&example.command)
            .current_dir(lab.path())
            .env("PATH", &path)
            .env_remove("CAIRN_STATE_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("bash: {e}"));
        let code = output.status.code().unwrap_or(-1);
        if code != example.exit {
            problems.push(format!(
                "{}:{}: `{}` exited with {code}, the docs say {}\n{}\n{}",
                file.display(),
                example.line,
                example.command,
                example.exit,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    problems
}

#[test]
fn every_documented_command_runs_as_written() {
    let mut problems = Vec::new();
    let mut count = 0;
    for file in docs() {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        let found = examples(&text);
        if file.ends_with("guide.md") {
            assert!(found.len() >= 10, "the guide's commands: {found:?}");
        }
        count += found.len();
        if !found.is_empty() {
            problems.extend(run_examples(&file, &found));
        }
    }
    assert!(count >= 13, "{count} documented commands");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn examples_are_read_from_sh_blocks_with_here_documents_and_exit_codes() {
    let text = "```sh\ncargo build\ncat > a <<'EOF'\nx\nEOF\ncairn run b   # exits 1\n```\n```text\ncairn no\n```\n";
    let found = examples(text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].command, "cat > a <<'EOF'\nx\nEOF");
    assert_eq!(
        (found[1].command.as_str(), found[1].exit, found[1].line),
        ("cairn run b", 1, 6)
    );
}
