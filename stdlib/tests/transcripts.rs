//! The transcript rule (docs/parsers.md, "Transcripts"): a parser of a tool that talks reads
//! the lines it knows plus messages. A line it does not know, inserted between two lines of a
//! published transcript (outside any table or block), must come back as a message with its
//! line number, never as a refusal, and must leave every other field as it was; and a tool's
//! own error is data: the result carries it with the tool's words and line.

use std::path::{Path, PathBuf};

use cairn_stdlib::parsers::parser;
use serde_json::Value;

/// Each transcript parser, a published fixture, the line (from 1, after the `$` line is dropped)
/// after which a stranger line is inserted, and the field its messages are kept in.
const TRANSCRIPTS: &[(&str, &str, usize, &str)] = &[
    ("openibd", "proxmox-cx4-mlx5-failed", 1, "messages"),
    ("openibd", "daocloud-opensm-holds-devices", 6, "messages"),
    (
        "mlxfwreset-reset",
        "talos-cx4-minimal-level-mst-skipped",
        6,
        "messages",
    ),
    (
        "mlxfwreset-reset",
        "openshift-cx7-the-reset-level-wording",
        9,
        "messages",
    ),
    (
        "mlxconfig-set",
        "cx6dx-cqe-compression-answered-n",
        14,
        "other",
    ),
    ("lspci-vv", "cx7-ndr-vv-spaces-padded-vpd", 0, "messages"),
    (
        "nccl-tests",
        "a3mega-2x8-h100-all-reduce-8b-8g",
        1,
        "messages",
    ),
    (
        "ibv-rc-pingpong",
        "rxe-roce-client-linux-rdma-list",
        2,
        "messages",
    ),
    ("ibv-rc-pingpong", "ib-no-gid-openmpi-list", 1, "messages"),
    (
        "ibdiagnet-summary",
        "ibutils-1.5.7-two-hosts-archwiki",
        6,
        "messages",
    ),
];

/// Each transcript parser's fixture whose output is the tool's own error, and the error's kind
/// and line.
const ERRORS: &[(&str, &str, &str, usize)] = &[
    ("openibd", "daocloud-opensm-holds-devices", "blocked", 8),
    ("openibd", "daocloud-mlx-compat-in-use", "module_in_use", 2),
    ("openibd", "proxmox-cx4-mlx5-failed", "step_failed", 2),
    ("mlxconfig-set", "cx6dx-cqe-compression-answered-n", "", 0),
];

const STRANGER: &str = "Connection to compute-01 closed by remote host.";

fn fixture(parser: &str, case: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(parser)
        .join(format!("{case}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match text.strip_prefix("$ ") {
        Some(_) => text
            .split_once('\n')
            .map_or(String::new(), |(_, rest)| rest.to_owned()),
        None => text,
    }
}

/// Drops the stranger line from every `field` list, the result's own and those of its entries
/// (`mlxconfig-set` keeps each device's output in `devices`, with its messages).
fn drop_stranger(value: &mut Value, field: &str) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if key == field
                    && let Some(messages) = inner.as_array_mut()
                {
                    messages.retain(|m| m["text"] != STRANGER);
                }
                drop_stranger(inner, field);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| drop_stranger(item, field)),
        _ => {}
    }
}

fn parse(name: &str, text: &str) -> Value {
    let parser = parser(name).unwrap_or_else(|| panic!("no parser {name}"));
    (parser.parse)(text).unwrap_or_else(|e| panic!("{name} refused:\n{e:?}\n{text}"))
}

#[test]
fn a_line_the_parser_does_not_know_is_a_message_with_its_line_never_a_refusal() {
    for (name, case, after, field) in TRANSCRIPTS {
        let text = fixture(name, case);
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(*after, STRANGER);
        let with = lines.join("\n") + "\n";
        let before = parse(name, &text);
        let mut after_value = parse(name, &with);
        let kept = after_value[*field]
            .as_array()
            .and_then(|messages| messages.iter().find(|m| m["text"] == STRANGER))
            .cloned()
            .unwrap_or_else(|| {
                panic!("{name}/{case}: the stranger line is not a message: {after_value:#}")
            });
        assert_eq!(kept["line"], after + 1, "{name}/{case}");
        // Nothing else changed but the line numbers after the insertion.
        drop_stranger(&mut after_value, field);
        assert_eq!(
            strip_lines(&before),
            strip_lines(&after_value),
            "{name}/{case}"
        );
    }
}

#[test]
fn a_tools_own_error_is_data_with_its_words_and_line() {
    for (name, case, kind, line) in ERRORS {
        let value = parse(name, &fixture(name, case));
        if kind.is_empty() {
            // The published `n` answer ends before mlxconfig's error: nothing applied, no error.
            assert_eq!(value["applied"], false, "{name}/{case}");
            assert_eq!(value["answer"], "n", "{name}/{case}");
            continue;
        }
        assert_eq!(value["error"]["kind"], *kind, "{name}/{case}");
        assert_eq!(value["error"]["line"], *line, "{name}/{case}");
        assert!(
            value["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{name}/{case}"
        );
    }
}

/// The value without line numbers (which move by one after an inserted line).
fn strip_lines(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "line")
                .map(|(k, v)| (k.clone(), strip_lines(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_lines).collect()),
        other => other.clone(),
    }
}
