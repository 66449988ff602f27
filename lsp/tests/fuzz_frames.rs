//! Fuzzing the language server's input: frames with hostile length headers, bodies, methods
//! and params, mutated as the parsers' fuzz test mutates text (`stdlib/tests/support`), fed to
//! the whole server over in-memory streams. No input may panic it or hang it, everything it
//! writes must be a well-formed JSON-RPC frame, and after a hostile frame whose length is
//! right it must still answer the request that follows.
//!
//! `CAIRN_FUZZ_SEED` sets the seed (default 1: every run the same cases), `CAIRN_FUZZ_CASES`
//! the number of cases (default 200).

#[path = "../../stdlib/tests/support/hostile.rs"]
mod hostile;

use std::io::{Cursor, Write};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hostile::{Rng, mutate};
use serde_json::{Value, json};

/// The longest one case may take (a debug build on a loaded machine checks a document slowly).
const LIMIT: Duration = Duration::from_secs(60);

const URI: &str = "file:///fuzz/book.rhai";
const TEXT: &str = "stage \"s\" on all {\n    run([\"true\"]);\n    let n = \" x \".trim();\n}\n";

/// What the server writes, kept for the checks.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl Write for Written {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(body);
    framed
}

fn message(value: &Value) -> Vec<u8> {
    frame(value.to_string().as_bytes())
}

/// The methods a hostile frame names: every one the server knows but the two that end it, and
/// some it does not.
const METHODS: &[&str] = &[
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/signatureHelp",
    "textDocument/definition",
    "textDocument/documentSymbol",
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didSave",
    "textDocument/didClose",
    "initialize",
    "initialized",
    "$/cancelRequest",
    "cairn/nothing",
    "",
];

/// Params of the shapes the methods take, and of no shape.
fn params(rng: &mut Rng) -> Value {
    let position = json!({"line": rng.below(6), "character": rng.below(40)});
    let document = json!({"uri": URI, "languageId": "rhai", "version": 2, "text": TEXT});
    let all = [
        json!({"textDocument": {"uri": URI}, "position": position}),
        json!({"textDocument": document}),
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [{"text": TEXT.replace("trim", "trimm")}]}),
        json!({"textDocument": {"uri": "file:///elsewhere.rhai"}, "position": {"line": u32::MAX, "character": u32::MAX}}),
        json!({"textDocument": {"uri": "not a uri"}}),
        json!([1, 2, 3]),
        json!("text"),
        Value::Null,
        json!({"id": 4}),
    ];
    all[rng.below(all.len())].clone()
}

/// A request or notification of a random method and params, its text mutated or not, framed
/// with its right length.
fn framed_case(rng: &mut Rng) -> Vec<u8> {
    let mut body = json!({"jsonrpc": "2.0", "method": METHODS[rng.below(METHODS.len())], "params": params(rng)});
    match rng.below(4) {
        0 => {}
        1 => body["id"] = json!(rng.below(1000) + 10),
        2 => body["id"] = json!({"not": "an id"}),
        _ => body["id"] = json!(format!("s{}", rng.below(100))),
    }
    let text = body.to_string();
    if rng.below(2) == 0 {
        frame(mutate(&text, rng).as_bytes())
    } else {
        frame(text.as_bytes())
    }
}

/// A frame whose header lies or is broken: lengths too long, too short, huge, negative, no
/// number; no header, no blank line, a line that never ends; or the whole frame mutated.
fn raw_case(rng: &mut Rng) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": METHODS[rng.below(METHODS.len())], "params": params(rng)}).to_string();
    let length = body.len();
    let header = match rng.below(12) {
        0 => format!("Content-Length: {}\r\n\r\n", length + 1 + rng.below(64)),
        1 => format!(
            "Content-Length: {}\r\n\r\n",
            length.saturating_sub(1 + rng.below(16))
        ),
        2 => "Content-Length: 1000000000000000\r\n\r\n".to_owned(),
        3 => format!("Content-Length: {}\r\n\r\n", u64::MAX),
        4 => "Content-Length: 99999999999999999999999\r\n\r\n".to_owned(),
        5 => "Content-Length: -5\r\n\r\n".to_owned(),
        6 => "Content-Type: application/json\r\n\r\n".to_owned(),
        7 => format!("content-length:{length}\n\n"),
        8 => format!(
            "Content-Length: {length}\r\nX-{}: b\r\n\r\n",
            "a".repeat(20_000)
        ),
        9 => format!("Content-Length: 2{}", "0".repeat(20_000)),
        10 => format!("Content-Length {length}\r\n\r\n"),
        _ => return mutate(&String::from_utf8_lossy(&frame(body.as_bytes())), rng).into_bytes(),
    };
    let mut raw = header.into_bytes();
    raw.extend_from_slice(body.as_bytes());
    raw
}

/// Every frame of `output`, each body's JSON; a frame that is not well formed fails the test.
fn frames_of(mut output: &[u8], case: &str) -> Vec<Value> {
    let mut found = Vec::new();
    while !output.is_empty() {
        let end = output
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("{case}: a frame without its blank line"));
        let header = String::from_utf8_lossy(&output[..end]);
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{case}: a header {header:?}"));
        let body = &output[end + 4..end + 4 + length];
        let value: Value = serde_json::from_slice(body)
            .unwrap_or_else(|e| panic!("{case}: a body that is no JSON ({e})"));
        assert_eq!(value["jsonrpc"], "2.0", "{case}: {value}");
        found.push(value);
        output = &output[end + 4 + length..];
    }
    found
}

/// Runs the server on `hostile` between a handshake and a probe; what it wrote.
fn serve(hostile: Vec<u8>, case: &str) -> Vec<Value> {
    let mut input = message(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "rootUri": null, "capabilities": {}}}),
    );
    input.extend(message(
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    ));
    input.extend(message(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": URI, "languageId": "rhai", "version": 1, "text": TEXT}}}),
    ));
    input.extend(hostile);
    input.extend(message(
        &json!({"jsonrpc": "2.0", "id": 999, "method": "textDocument/hover", "params": {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 5}}}),
    ));
    input.extend(message(
        &json!({"jsonrpc": "2.0", "id": 1000, "method": "shutdown"}),
    ));
    input.extend(message(&json!({"jsonrpc": "2.0", "method": "exit"})));
    let written = Written::default();
    let output = written.clone();
    let (done, finished) = channel();
    std::thread::spawn(move || {
        let served = cairn_lsp::serve(Cursor::new(input), output, Vec::new());
        let _ = done.send(served.map_err(|e| e.to_string()));
    });
    match finished.recv_timeout(LIMIT) {
        Ok(_) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{case}: a hang"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{case}: a panic"),
    }
    let bytes = written
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    frames_of(&bytes, case)
}

fn answered(frames: &[Value], id: i64) -> bool {
    frames.iter().any(|f| f["id"] == json!(id))
}

#[test]
fn hostile_frames_never_panic_and_the_server_reads_on() {
    let seed = std::env::var("CAIRN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let cases = std::env::var("CAIRN_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let mut rng = Rng::new(seed);
    let (mut framed, mut raw, mut read_on) = (0, 0, 0);
    for case in 0..cases {
        let name = format!("seed {seed} case {case}");
        if rng.below(2) == 0 {
            let mut hostile = Vec::new();
            for _ in 0..=rng.below(3) {
                hostile.extend(framed_case(&mut rng));
            }
            let frames = serve(hostile, &name);
            assert!(
                answered(&frames, 999),
                "{name}: the probe after it was not answered: {frames:?}"
            );
            framed += 1;
        } else {
            let frames = serve(raw_case(&mut rng), &name);
            read_on += usize::from(answered(&frames, 999));
            raw += 1;
        }
    }
    eprintln!(
        "seed {seed}: {framed} framed cases, each answered after; {raw} broken frames, {read_on} of them read on"
    );
}
