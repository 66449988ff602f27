//! A parser claims its own tool's output or refuses (docs/parsers.md, "Claims").
//!
//! Every parser is fed every other parser's fixtures (`tests/fixtures/<parser>/*.txt` that their
//! own parser reads, i.e. those with a `.golden`, and the corpus files of `../shared/fixtures`
//! their goldens claim; the `$ command` line dropped as the golden test drops it) and must
//! refuse each: a builtin that ran the wrong command, or a host
//! that printed an error page, must not get a "successful" result, empty or not. A transcript
//! parser, which keeps unknown lines as messages, does so only once it has seen a line of its
//! own tool, so it refuses a stranger's text too.

mod support;

use std::path::{Path, PathBuf};

use cairn_stdlib::parsers::{ToolParser, parsers};

/// Pairs of parsers that legitimately read the same output, each with why: (reader, the
/// fixture's parser, reason). Nothing else may read another parser's fixture.
const SHARED_OUTPUTS: &[(&str, &str, &str)] = &[];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Every fixture its own parser reads (it has a `.golden`, not a `.fail.golden`): (owner, file,
/// output).
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
        // The shared corpus, read in place, where a golden under the parser claims a file.
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
        for file in files {
            if let Ok(text) = std::fs::read_to_string(&file) {
                claimed.push((parser.name, file, support::fixtures::output_of(text)));
            }
        }
    }
    claimed
}

fn shared_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures")
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
    let claimed = claimed_fixtures();
    assert!(!claimed.is_empty(), "no fixtures found");
    let mut complaints = Vec::new();
    for parser in parsers() {
        for (owner, file, text) in &claimed {
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

/// The text a builtin gets when its host prints something else entirely.
#[test]
fn every_parser_refuses_a_strangers_line() {
    let refusals: Vec<String> = parsers()
        .iter()
        .filter_map(|parser| {
            claim(parser, "hello world\n").map(|result| format!("{}: {result}", parser.name))
        })
        .collect();
    assert!(
        refusals.is_empty(),
        "parsers that read `hello world`:\n{}",
        refusals.join("\n")
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
