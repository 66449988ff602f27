//! Helpers for parser unit tests.

mod test_host;

pub(crate) use test_host::{INSTALL_TOOLS, TestHost};

/// A captured output without its `$ command` line, where it has one.
pub(crate) fn output_of(capture: &str) -> &str {
    match capture.split_once('\n') {
        Some((first, rest)) if first.starts_with('$') => rest,
        _ => capture,
    }
}

/// `../shared/fixtures/DIR/NAME.txt` (or under `CAIRN_SHARED_FIXTURES`), read in place: for
/// tests marked `#[cfg_attr(not(shared_corpus), ignore = ...)]`, which run only where
/// stdlib/build.rs found the corpus, so a missing file is a failure.
pub(crate) fn shared_fixture(dir: &str, name: &str) -> String {
    let path = format!("{}/{dir}/{name}.txt", env!("CAIRN_SHARED_FIXTURES_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A fixture's output (its `$ command` line dropped) with `\r\n` line ends, without its final
/// line break, and with one more leading space on every line: each must read as the original.
pub(crate) fn variants(fixture: &str) -> Vec<String> {
    let text = fixture.split_once('\n').map_or(fixture, |(_, rest)| rest);
    vec![
        text.replace('\n', "\r\n"),
        text.trim_end_matches('\n').to_owned(),
        text.lines().map(|line| format!(" {line}\n")).collect(),
    ]
}

/// A journal whose action 1 is `builtin(args)`, finished with `result` (its intent on line 3,
/// as a run writes it): what a resume replays the builtin from, for the journal-shape tests.
pub(crate) fn journal_of(
    builtin: &str,
    args: serde_json::Value,
    result: serde_json::Value,
) -> cairn_runtime::journal::HostJournal {
    use cairn_runtime::journal::{HostJournal, IntentRecord, OutcomeRecord, RecordedAction};
    let intent = IntentRecord {
        args,
        at: 0,
        builtin: builtin.to_owned(),
        column: 1,
        file: "test.rhai".into(),
        line: 1,
        ordinal: 1,
        reconcile: "redo".into(),
        seq: 1,
        stage: "test".into(),
        stage_index: 1,
    };
    let outcome = OutcomeRecord {
        at: 0,
        changed: false,
        elapsed_ms: 0,
        error: None,
        how: None,
        ok: true,
        reboot_required: false,
        result,
        secrets: Vec::new(),
        seq: 1,
    };
    let action = RecordedAction {
        decision: None,
        intent,
        line: 3,
        outcome: Some(outcome),
        progress: Vec::new(),
    };
    HostJournal {
        actions: std::collections::BTreeMap::from([(1, action)]),
        path: "test.jsonl".into(),
        ..HostJournal::default()
    }
}

/// The error a journal-shape refusal of `builtin`'s action 1 starts with.
pub(crate) fn shape_error(builtin: &str, expected: &str) -> String {
    format!("the result of `{builtin}` (action 1) does not read as {expected}: ")
}

/// Opens a simulated host of `model` named `name`, its state in `dir`, with `sim:` options
/// (`clock=virtual` added, which an option may override).
pub(crate) fn sim_host(
    model: cairn_runtime::sim::SimModel,
    name: &str,
    dir: impl Into<std::path::PathBuf>,
    options: &[(&str, &str)],
) -> cairn_runtime::sim::SimHost {
    let mut map = std::collections::BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
    for (key, value) in options {
        map.insert((*key).to_owned(), (*value).to_owned());
    }
    cairn_runtime::sim::SimHost::open(name, dir, std::sync::Arc::new(model), map)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A simulated `rhel8` guest (see [`sim_host`]).
pub(crate) fn rhel8_guest(
    name: &str,
    dir: impl Into<std::path::PathBuf>,
    options: &[(&str, &str)],
) -> cairn_runtime::sim::SimHost {
    sim_host(crate::models::rhel8::rhel8(), name, dir, options)
}

/// Runs `argv` on a simulated host; panics when the simulator cannot.
pub(crate) fn sim_exec(
    host: &cairn_runtime::sim::SimHost,
    argv: &[&str],
) -> cairn_runtime::ExecOutput {
    host.exec(&cairn_runtime::ExecRequest::new(argv.iter().copied()))
        .unwrap_or_else(|e| panic!("{e}"))
}
