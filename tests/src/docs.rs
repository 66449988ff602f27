//! Every command in a `sh` block of README.md and docs/*.md runs as written, so the docs never
//! go stale: each file's commands run in order in a fresh copy of the shipped runbooks, with
//! the built `cairn` first on PATH. A command exits 0 unless it ends with `# exits N`.
//! `cargo` lines (building cairn itself) are left to tests/src/readme.rs and CI.
//!
//! A `text` block right after a `sh` block (prose between, no other block) shows what those
//! commands print: each of its lines must be in their output, in order, once times, run ids
//! and boot ids are normalised; a line `...` stands for any lines, and a line ending in `...`
//! for any line that starts so. Interactive commands (`cairn repl`, `cairn debug`) are not
//! compared.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cairn_tests::{Lab, binary};

/// One documented command: its text, where it is, the exit code it must give, and which `sh`
/// block (numbered from 0 in the file) it is in.
#[derive(Debug)]
struct Example {
    command: String,
    line: usize,
    exit: i32,
    block: usize,
}

/// A `text` block showing what the commands of `sh` block `block` print.
#[derive(Debug)]
struct Shown {
    block: usize,
    line: usize,
    lines: Vec<String>,
}

/// The `text` blocks that follow a `sh` block with no other block between.
fn shown_outputs(markdown: &str) -> Vec<Shown> {
    let mut found = Vec::new();
    let mut sh_blocks = 0;
    // The `sh` block just closed, if no other block came since.
    let mut after_sh: Option<usize> = None;
    let mut open: Option<(String, usize, Vec<String>)> = None;
    for (index, line) in markdown.lines().enumerate() {
        if let Some((lang, start, mut lines)) = open.take() {
            if !line.starts_with("```") {
                lines.push(line.to_owned());
                open = Some((lang, start, lines));
                continue;
            }
            match (lang.as_str(), after_sh) {
                ("sh", _) => {
                    after_sh = Some(sh_blocks);
                    sh_blocks += 1;
                }
                ("text", Some(block)) => {
                    found.push(Shown {
                        block,
                        line: start,
                        lines,
                    });
                    after_sh = None;
                }
                _ => after_sh = None,
            }
            continue;
        }
        if let Some(lang) = line.strip_prefix("```") {
            open = Some((lang.trim().to_owned(), index + 2, Vec::new()));
        }
    }
    found
}

/// A line with what changes from run to run replaced: run ids, boot ids, durations; and runs
/// of spaces made one, since column widths follow the longest name.
fn normalised(line: &str) -> String {
    use std::sync::LazyLock;
    static VARIABLE: LazyLock<[(regex::Regex, &str); 3]> = LazyLock::new(|| {
        let re = |pattern: &str| regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{e}"));
        [
            (re(r"\b\d{8}-\d{6}(-\d+)?\b"), "RUN-ID"),
            (
                re(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
                "UUID",
            ),
            (re(r"\b\d+(\.\d+)? ?(ms|s|min)\b"), "TIME"),
        ]
    });
    let mut text = line.trim_end().to_owned();
    for (pattern, with) in VARIABLE.iter() {
        text = pattern.replace_all(&text, *with).into_owned();
    }
    text.split(' ')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What of `shown` is missing from `output`, in order; `None` when all of it is there.
fn missing(shown: &[String], output: &str) -> Option<String> {
    let printed: Vec<String> = output.lines().map(normalised).collect();
    let mut at = 0;
    for line in shown
        .iter()
        .map(|l| normalised(l))
        .filter(|l| !l.is_empty())
    {
        if line == "..." {
            continue;
        }
        let prefix = line.strip_suffix("...").map(str::trim_end);
        let found = printed[at..].iter().position(|p| match prefix {
            Some(prefix) => p.starts_with(prefix),
            None => *p == line,
        });
        match found {
            Some(offset) => at += offset + 1,
            None => return Some(line),
        }
    }
    None
}

/// The commands of the `sh` blocks of a Markdown text: a here-document runs with its lines.
fn examples(markdown: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut in_sh = false;
    let mut sh_blocks = 0;
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
            if in_sh {
                sh_blocks += 1;
            }
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
            block: sh_blocks,
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

/// README.md and docs/*.md: the docs a user reads.
pub(crate) fn docs() -> Vec<PathBuf> {
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

/// Runs a file's examples in order in a fresh lab, checking each shown output against what
/// its block's commands printed; returns what went wrong.
fn run_examples(file: &Path, examples: &[Example], shown: &[Shown]) -> Vec<String> {
    let lab = Lab::shipped();
    let bin = binary("cairn");
    let bin_dir = bin.parent().unwrap_or_else(|| Path::new("."));
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut problems = Vec::new();
    let mut printed: std::collections::BTreeMap<usize, String> = Default::default();
    for example in examples {
        let output = Command::new("bash")
            .arg("-c")
            .arg(&example.command)
            .current_dir(lab.path())
            .env("PATH", &path)
            .env_remove("CAIRN_STATE_DIR")
            .env("XDG_CONFIG_HOME", lab.path().join(".config"))
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("bash: {e}"));
        let code = output.status.code().unwrap_or(-1);
        let text = printed.entry(example.block).or_default();
        text.push_str(&String::from_utf8_lossy(&output.stdout));
        text.push_str(&String::from_utf8_lossy(&output.stderr));
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
    let interactive = |block: usize| {
        examples.iter().any(|e| {
            e.block == block
                && (e.command.contains("cairn repl") || e.command.contains("cairn debug"))
        })
    };
    for output in shown.iter().filter(|o| !interactive(o.block)) {
        let Some(text) = printed.get(&output.block) else {
            continue;
        };
        if let Some(line) = missing(&output.lines, text) {
            problems.push(format!(
                "{}:{}: the output shown is not what the commands above it print: no line `{line}` (normalised) in\n{text}",
                file.display(),
                output.line
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
            problems.extend(run_examples(&file, &found, &shown_outputs(&text)));
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

#[test]
fn a_text_block_after_a_sh_block_is_its_output_compared_without_times_and_ids() {
    let text = "```sh\ncairn runs\n```\nprose\n```text\nrun 20261130-080309: ok\n...\n  esx01  ok=1   1.5 s\n```\n```text\nnot output\n```\n";
    let shown = shown_outputs(text);
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!((shown[0].block, shown[0].line), (0, 6));
    let printed = "run 20261202-001122-2: ok\nother\nesx01 ok=1 445 ms\n";
    assert_eq!(missing(&shown[0].lines, printed), None);
    let drifted = "run 20261202-001122: ok\nesx01 ok=2 445 ms\n";
    assert_eq!(
        missing(&shown[0].lines, drifted),
        Some("esx01 ok=1 TIME".to_owned())
    );
}
