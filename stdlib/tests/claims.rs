//! A parser claims its own tool's output or refuses (docs/parsers.md, "Claims").
//!
//! Every parser is fed every other parser's fixtures (`tests/fixtures/<parser>/*.txt` that their
//! own parser reads, i.e. those with a `.golden`, and, where the shared corpus is here, the
//! files of `../shared/fixtures` their goldens claim; the `$ command` line dropped as the golden
//! test drops it) and must refuse each: a builtin that ran the wrong command, or a host
//! that printed an error page, must not get a "successful" result, empty or not. A transcript
//! parser, which keeps unknown lines as messages, does so only once it has seen a line of its
//! own tool, so it refuses a stranger's text too.

mod support;

use std::path::{Path, PathBuf};

use cairn_stdlib::parsers::{ToolParser, parsers};
use support::fixtures::shared_corpus;

/// Pairs of parsers that legitimately read the same output, each with why: (reader, the
/// fixture's parser, reason). Nothing else may read another parser's fixture.
const SHARED_OUTPUTS: &[(&str, &str, &str)] = &[];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Every project fixture its own parser reads (it has a `.golden`, not a `.fail.golden`):
/// (owner, file, output).
fn claimed_fixtures() -> Vec<(&'static str, PathBuf, String)> {
    let mut claimed = Vec::new();
    for parser in parsers() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join(parser.name))
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
            .filter(|path| path.with_extension("golden").exists())
            .collect();
        files.sort();
        claimed.extend(read(parser.name, files));
    }
    claimed
}

/// Every file of the shared corpus that a golden under its parser claims (read in place), as
/// [`claimed_fixtures`].
fn claimed_corpus() -> Vec<(&'static str, PathBuf, String)> {
    let mut claimed = Vec::new();
    for parser in parsers() {
        let mut files = Vec::new();
        let corpus = fixtures().join(parser.name).join("corpus");
        for dir in std::fs::read_dir(&corpus).into_iter().flatten().flatten() {
            for golden in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = golden.file_name().to_string_lossy().into_owned();
                if let Some(stem) = name
                    .strip_suffix(".golden")
                    .filter(|s| !s.ends_with(".fail"))
                {
                    files.push(
                        shared_corpus()
                            .join(dir.file_name())
                            .join(format!("{stem}.txt")),
                    );
                }
            }
        }
        files.sort();
        claimed.extend(read(parser.name, files));
    }
    claimed
}

/// The outputs of `files`, owned by `owner`; a file that cannot be read is a failure.
fn read(owner: &'static str, files: Vec<PathBuf>) -> Vec<(&'static str, PathBuf, String)> {
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            (owner, file, support::fixtures::output_of(text))
        })
        .collect()
}

fn shared(reader: &str, owner: &str) -> bool {
    SHARED_OUTPUTS
        .iter()
        .any(|(r, o, _)| *r == reader && *o == owner)
}

/// What a parser made of a stranger's text, when it did not refuse it: the start of its JSON.
fn claim(parser: &ToolParser, text: &str) -> Option<String> {
    let value = (parser.parse)(text).ok()?;
    let json = value.to_string();
    Some(json.chars().take(160).collect())
}

#[test]
fn every_parser_refuses_every_other_parsers_fixtures() {
    refuse_all(&claimed_fixtures());
}

#[test]
#[cfg_attr(not(shared_corpus), ignore = "skipped: ../shared/fixtures absent")]
fn every_parser_refuses_every_other_parsers_corpus_files() {
    refuse_all(&claimed_corpus());
}

/// Every parser refuses every output of `claimed` that is not its own.
fn refuse_all(claimed: &[(&'static str, PathBuf, String)]) {
    assert!(!claimed.is_empty(), "no fixtures found");
    let mut complaints = Vec::new();
    for parser in parsers() {
        for (owner, file, text) in claimed {
            if *owner == parser.name || shared(parser.name, owner) {
                continue;
            }
            if let Some(result) = claim(parser, text) {
                complaints.push(format!(
                    "{} parses {}: {result}",
                    parser.name,
                    file.strip_prefix(fixtures())
                        .or_else(|_| file.strip_prefix(shared_corpus()))
                        .unwrap_or(file)
                        .display()
                ));
            }
        }
    }
    assert!(
        complaints.is_empty(),
        "{} parsers claim another tool's output:\n{}",
        complaints.len(),
        complaints.join("\n")
    );
}

/// What a builtin gets when its host prints something else entirely: a stranger's line, the
/// shell's answer for a program that is not installed, a proxy's error page.
const STRANGERS: &[&str] = &[
    "hello world\n",
    "bash: ibstat: command not found\n",
    "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n</body>\n</html>\n",
];

#[test]
fn every_parser_refuses_a_strangers_text() {
    let claims: Vec<String> = parsers()
        .iter()
        .flat_map(|parser| {
            STRANGERS.iter().filter_map(move |text| {
                claim(parser, text)
                    .map(|result| format!("{} reads {text:?}: {result}", parser.name))
            })
        })
        .collect();
    assert!(
        claims.is_empty(),
        "parsers that read a stranger's text:\n{}",
        claims.join("\n")
    );
}

/// Every shared pair names two parsers that exist, so the list cannot hide a renamed one.
#[test]
fn shared_outputs_name_real_parsers() {
    for (reader, owner, reason) in SHARED_OUTPUTS {
        for name in [reader, owner] {
            assert!(
                parsers().iter().any(|p| p.name == *name),
                "SHARED_OUTPUTS names unknown parser {name} ({reason})"
            );
        }
    }
}
