//! Helpers for parser unit tests.

pub(crate) mod esxi_host;
pub(crate) mod guest_host;

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
