//! Every parser reads an output the same whatever its line ends: LF, CRLF, or CR alone (a
//! terminal capture, a serial console). Each project fixture is parsed three ways and must give
//! the same result, or fail at the same offset; the time a CR-only output takes is the fuzz
//! test's and the bench's (`cr` shape).

mod support;

use std::path::Path;

use cairn_stdlib::parsers::parsers;

/// The result as JSON, or the line where the parse stopped and why.
fn outcome(
    parse: fn(&str) -> Result<serde_json::Value, cairn_stdlib::ParseError>,
    text: &str,
) -> String {
    match parse(text) {
        Ok(value) => value.to_string(),
        Err(error) => {
            let before = text.get(..error.span.offset()).unwrap_or_default();
            let line = before.replace("\r\n", "\n").replace('\r', "\n");
            format!(
                "error on line {}: {}",
                line.matches('\n').count() + 1,
                error.message
            )
        }
    }
}

#[test]
fn every_fixture_parses_the_same_with_lf_crlf_and_cr_alone() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut complaints = Vec::new();
    let mut cases = 0;
    for parser in parsers() {
        let mut texts = support::fixtures::texts_under(&fixtures.join(parser.name));
        texts.sort();
        for text in texts.into_iter().map(support::fixtures::output_of) {
            let lf = outcome(parser.parse, &text);
            for (name, end) in [("CRLF", "\r\n"), ("CR", "\r")] {
                let other = outcome(parser.parse, &text.replace('\n', end));
                if other != lf {
                    let head: String = text
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .chars()
                        .take(60)
                        .collect();
                    complaints.push(format!(
                        "{} with {name} line ends ({head}…):\n  LF:    {}\n  {name}: {}",
                        parser.name,
                        lf.chars().take(200).collect::<String>(),
                        other.chars().take(200).collect::<String>(),
                    ));
                }
            }
            cases += 1;
        }
    }
    assert!(cases > 0, "no fixtures under {}", fixtures.display());
    assert!(complaints.is_empty(), "{}", complaints.join("\n"));
}
