//! No parser panics, whatever it is fed: arbitrary text, and real outputs cut, spliced and
//! mutated. Only `Ok` or a `ParseError` may come back.

mod support;

use std::path::Path;

use cairn_stdlib::parsers::parsers;
use proptest::prelude::*;

/// Every fixture text in the project, the seeds that mutations start from (read once).
fn seeds() -> &'static [String] {
    static SEEDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(read_seeds)
}

fn read_seeds() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut seeds = support::fixtures::texts_under(&root);
    seeds.sort();
    if seeds.is_empty() {
        seeds.push(String::new());
    }
    seeds
}

/// A mutation of a seed: a slice of it, a byte replaced, lines dropped or repeated.
#[derive(Debug, Clone)]
enum Mutation {
    DropLine(usize),
    DuplicateLine(usize),
    Insert(usize, String),
    Truncate(usize),
}

fn mutate(seed: &str, mutations: &[Mutation]) -> String {
    let mut text = seed.to_owned();
    for mutation in mutations {
        match mutation {
            Mutation::Truncate(at) => {
                let at = floor_char_boundary(&text, at % (text.len() + 1));
                text.truncate(at);
            }
            Mutation::Insert(at, what) => {
                let at = floor_char_boundary(&text, at % (text.len() + 1));
                text.insert_str(at, what);
            }
            Mutation::DropLine(n) | Mutation::DuplicateLine(n) => {
                let mut lines: Vec<&str> = text.split('\n').collect();
                let n = n % lines.len();
                if matches!(mutation, Mutation::DropLine(_)) {
                    lines.remove(n);
                } else {
                    lines.insert(n, lines[n]);
                }
                text = lines.join("\n");
            }
        }
    }
    text
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DropLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), "[ \t\n:|a-zA-Z0-9.\\-_()\\[\\]]{0,12}")
            .prop_map(|(at, s)| Mutation::Insert(at, s)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn cases() -> u32 {
    std::env::var("CAIRN_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "(?s).{0,400}") {
        for parser in parsers() {
            let _ = (parser.parse)(&text);
        }
    }

    #[test]
    fn mutated_real_output_never_panics(
        seed in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let seeds = seeds();
        let text = mutate(seeds[seed.index(seeds.len())].as_str(), &mutations);
        for parser in parsers() {
            let _ = (parser.parse)(&text);
        }
    }
}
