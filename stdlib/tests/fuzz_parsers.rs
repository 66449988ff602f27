//! Structure-aware fuzzing of every parser, in a time budget: the real outputs (project
//! fixtures; `../shared/fixtures` read in place, in a test of its own ignored where it is
//! absent) and the simulator's outputs, mutated the ways a captured output is (CRLF,
//! truncation, repeated lines, huge numbers, long runs), and 1 MB hostile shapes. No parser may
//! panic or take long, and every error must render through miette's graphical handler.
//!
//! `CAIRN_FUZZ_SECS` sets the budget of each mutation loop (default 6), `CAIRN_FUZZ_SEED` its
//! seed (default: the time, printed so a failure can be replayed).

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cairn_runtime::sim::SimTransport;
use cairn_runtime::{ExecRequest, Transport};
use cairn_stdlib::parsers::{ToolParser, parsers};
use support::hostile::{Rng, mutate, shapes};

/// The longest a parser may take on any input, and per MB of it, rendering included: generous,
/// as CI machines are noisy (a debug build is about seven times slower than a release one, and
/// a loaded two-core machine once took over a second of wall time for a small input). A hang or
/// a quadratic walk still takes far longer; the bench measures the real times.
const LIMIT_FLOOR: Duration =
    Duration::from_millis(if cfg!(debug_assertions) { 3000 } else { 750 });
const LIMIT_PER_MB: Duration = Duration::from_secs(if cfg!(debug_assertions) { 10 } else { 1 });
/// The size of the hostile shapes: 1 MB in release (`cargo test --release`), 128 KB in a debug
/// build, where a quadratic grammar still takes seconds (the 200 KB blank run took minutes).
const SHAPE_BYTES: usize = if cfg!(debug_assertions) {
    128 << 10
} else {
    1 << 20
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.txt` under `dir`, its `$ command` line dropped.
fn texts_under(dir: &Path, into: &mut Vec<String>) {
    into.extend(
        support::fixtures::texts_under(dir)
            .into_iter()
            .map(support::fixtures::output_of),
    );
}

/// What the simulated ESXi host and Linux guest print for the commands cairn parses.
fn simulator_outputs(into: &mut Vec<String>) {
    let registry = cairn_stdlib::sim_models();
    // One command line a row, its words split on spaces.
    let commands = [
        "esxcli software vib list",
        "esxcli network nic list",
        "esxcli hardware pci pcipassthru list",
        "esxcli system module parameters list -m nmlx5_core",
        "esxcli system settings advanced list -o /Power/CpuPolicy",
        "lspci",
        "ibstat",
        "ibstatus",
        "ibv_devinfo -v",
        "ibdev2netdev -v",
        "ip -j addr show",
        "ip addr show",
        "ofed_info -s",
        "mst status -v",
        "ibnetdiscover -p",
        "mlxfwmanager",
    ];
    for model in ["esxi7", "rhel8"] {
        let Ok(model) = registry.model(model) else {
            continue;
        };
        let Ok(dir) = tempfile::tempdir() else {
            continue;
        };
        let Ok(mut host) = SimTransport::new("fuzz01", dir.path(), model, Default::default())
        else {
            continue;
        };
        for line in commands {
            if let Ok(output) = host.exec(&ExecRequest::new(line.split(' ')))
                && output.code == 0
                && !output.stdout.is_empty()
            {
                into.push(output.stdout);
            }
        }
    }
}

/// The seeds in the repository, read once: project fixtures and simulator outputs.
fn seeds() -> &'static [String] {
    static SEEDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut seeds = Vec::new();
        texts_under(&root().join("tests/fixtures"), &mut seeds);
        simulator_outputs(&mut seeds);
        seeds.sort();
        seeds.dedup();
        seeds
    })
}

/// Parses `text` and renders any error graphically, as `cairn parse` does; returns a complaint
/// when that took too long. A panic fails the test by itself.
fn exercise(parser: &ToolParser, text: &str) -> Option<String> {
    let started = Instant::now();
    if let Err(error) = (parser.parse)(text) {
        let mut out = String::new();
        let handler =
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
        let _ = handler.render_report(&mut out, &error);
        assert!(out.contains("does not parse"), "{}: {out}", parser.name);
    }
    let took = started.elapsed();
    let limit = LIMIT_FLOOR + LIMIT_PER_MB.mul_f64(text.len() as f64 / 1_048_576.0);
    (took > limit).then(|| {
        format!(
            "{}: {} bytes took {took:?} (limit {limit:?})",
            parser.name,
            text.len()
        )
    })
}

#[test]
fn mutated_real_and_simulator_outputs_never_panic_nor_take_long() {
    fuzz(seeds());
}

#[test]
#[cfg_attr(not(shared_corpus), ignore = "skipped: ../shared/fixtures absent")]
fn mutated_corpus_outputs_never_panic_nor_take_long() {
    let mut seeds = Vec::new();
    texts_under(&support::fixtures::shared_corpus(), &mut seeds);
    fuzz(&seeds);
}

/// Mutates `seeds` and feeds the results to random parsers for the budget.
fn fuzz(seeds: &[String]) {
    assert!(seeds.len() > 10, "only {} seeds", seeds.len());
    let seed = std::env::var("CAIRN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_secs())
        });
    let budget = std::env::var("CAIRN_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    eprintln!("fuzz seed {seed} ({} seeds, {budget} s)", seeds.len());
    let mut rng = Rng::new(seed);
    let started = Instant::now();
    let mut complaints = Vec::new();
    let mut cases = 0;
    while started.elapsed() < Duration::from_secs(budget) {
        let mut text = seeds[rng.below(seeds.len())].clone();
        for _ in 0..=rng.below(3) {
            text = mutate(&text, &mut rng);
        }
        let parser = &parsers()[rng.below(parsers().len())];
        complaints.extend(exercise(parser, &text));
        cases += 1;
    }
    eprintln!("{cases} cases");
    assert!(cases > 0);
    assert!(
        complaints.is_empty(),
        "seed {seed}:\n{}",
        complaints.join("\n")
    );
}

/// Each parser on hostile shapes of its own fixtures (the first that parses, or any): one huge
/// run of blanks, 20,000 tabs in every line, a 70,000-letter line, a huge number...
#[test]
fn hostile_shapes_parse_or_fail_fast() {
    let mut complaints = Vec::new();
    for parser in parsers() {
        let mut own = Vec::new();
        texts_under(&root().join("tests/fixtures").join(parser.name), &mut own);
        own.sort();
        let seed = own
            .iter()
            .find(|t| (parser.parse)(t).is_ok())
            .or(own.first())
            .cloned()
            .unwrap_or_default();
        for (_, text) in shapes(&seed, SHAPE_BYTES) {
            complaints.extend(exercise(parser, &text));
        }
    }
    assert!(complaints.is_empty(), "{}", complaints.join("\n"));
}
