//! Every parser on 1 MB inputs of hostile shapes made from its own fixtures: prints, per parser,
//! the time of each shape (parse plus the graphical rendering of any error, as `cairn parse`
//! does) and the worst, so a super-linear grammar shows. Run with
//! `cargo bench -p cairn-stdlib --bench parsers`; `docs/performance.md` keeps the numbers.

#[path = "../tests/support/hostile.rs"]
mod hostile;

use std::path::Path;
use std::time::{Duration, Instant};

use cairn_stdlib::parsers::{ToolParser, parsers};

/// The fixtures of `parser`, the first that parses first (a real output of the tool).
fn seed(parser: &ToolParser) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(parser.name);
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .map(|text| match text.strip_prefix("$ ") {
            Some(rest) => rest.split_once('\n').map_or("", |(_, t)| t).to_owned(),
            None => text,
        })
        .collect();
    texts.sort();
    let ok = texts
        .iter()
        .position(|t| (parser.parse)(t).is_ok())
        .unwrap_or(0);
    texts.get(ok).cloned().unwrap_or_default()
}

/// The slowest of three runs of `parser` on `text`, and whether it parsed.
fn time(parser: &ToolParser, text: &str) -> (Duration, bool) {
    let mut worst = Duration::ZERO;
    let mut parsed = false;
    for _ in 0..3 {
        let started = Instant::now();
        let result = (parser.parse)(text);
        parsed = result.is_ok();
        if let Err(error) = result {
            let mut out = String::new();
            let handler = miette::GraphicalReportHandler::new_themed(
                miette::GraphicalTheme::unicode_nocolor(),
            );
            let _ = handler.render_report(&mut out, &error);
        }
        worst = worst.max(started.elapsed());
    }
    (worst, parsed)
}

fn main() {
    let names: Vec<&str> = hostile::shapes("", 0)
        .iter()
        .map(|(name, _)| *name)
        .collect();
    println!("1 MB inputs; milliseconds, slowest of 3 runs (`*`: parsed, else a rendered error)\n");
    println!("| parser | {} | worst |", names.join(" | "));
    println!("|---|{}---|", "---|".repeat(names.len()));
    for parser in parsers() {
        let seed = seed(parser);
        let mut cells = Vec::new();
        let mut worst = Duration::ZERO;
        for (_, text) in hostile::shapes(&seed, 1 << 20) {
            let (took, parsed) = time(parser, &text);
            worst = worst.max(took);
            cells.push(format!(
                "{:.1}{}",
                took.as_secs_f64() * 1e3,
                if parsed { "*" } else { "" }
            ));
        }
        println!(
            "| {} | {} | {:.1} |",
            parser.name,
            cells.join(" | "),
            worst.as_secs_f64() * 1e3
        );
    }
}
