//! `cairn lsp`: a client speaking JSON-RPC to the spawned binary, as an editor does (the
//! Language Server Protocol's base protocol: `Content-Length` headers, then the JSON body).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use cairn_tests::Lab;
use serde_json::{Value, json};

/// A language client on the server's standard input and output.
struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications that came while waiting for a response.
    notes: Vec<Value>,
}

impl Client {
    /// `cairn lsp` in `lab`, after the handshake (`initialize`, `initialized`).
    fn start(lab: &Lab, options: Value) -> (Self, Value) {
        let mut child = lab
            .command(&["lsp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cairn lsp: {e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (send, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if send.send(message).is_err() {
                    break;
                }
            }
        });
        let mut client = Self {
            child,
            stdin,
            incoming,
            next_id: 1,
            notes: Vec::new(),
        };
        let root = url(lab.path());
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {}, "initializationOptions": options}),
        );
        client.notify("initialized", json!({}));
        (client, init)
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    /// Bytes as they are, whether a frame or not.
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin
            .write_all(bytes)
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("write to cairn lsp: {e}"));
    }

    /// The next error response (to a frame the server could not read), notifications kept.
    fn error(&mut self) -> Value {
        loop {
            let message = self.receive("an error");
            if message.get("error").is_some() {
                return message;
            }
            self.notes.push(message);
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response's `result` (panicking on an error).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.receive(method);
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
            self.notes.push(message);
        }
    }

    fn receive(&mut self, waiting_for: &str) -> Value {
        self.incoming
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no answer to {waiting_for}: {e}"))
    }

    /// The next `publishDiagnostics` for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let is_it = |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        };
        if let Some(at) = self.notes.iter().position(is_it) {
            return array(&self.notes.remove(at)["params"]["diagnostics"]);
        }
        loop {
            let message = self.receive("publishDiagnostics");
            if is_it(&message) {
                return array(&message["params"]["diagnostics"]);
            }
            self.notes.push(message);
        }
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "rhai", "version": 1, "text": text}}),
        );
    }

    /// A request at the first `|` of `marked` (line, UTF-16 column; the runbooks here are
    /// ASCII), in the document `uri`.
    fn at(&mut self, method: &str, uri: &str, text: &str, marked: &str) -> Value {
        let (line, character) = position_of(text, marked);
        self.request(
            method,
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    }

    /// Shuts the server down as a client must, and waits for it to exit 0.
    fn shut_down(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
        assert!(status.success(), "cairn lsp exited with {status}");
    }
}

/// Where `marked` (one `|` in a snippet of `text`) puts its bar: 0-based line and column.
fn position_of(text: &str, marked: &str) -> (usize, usize) {
    let (before, after) = marked.split_once('|').unwrap_or((marked, ""));
    let whole = format!("{before}{after}");
    let start = text
        .find(&whole)
        .unwrap_or_else(|| panic!("`{whole}` is not in the text"));
    let at = start + before.len();
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, column)
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some(value) = header.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn array(value: &Value) -> Vec<Value> {
    value.as_array().cloned().unwrap_or_default()
}

fn url(path: &std::path::Path) -> String {
    format!("file://{}", path.display())
}

fn labels(items: &Value) -> Vec<String> {
    let items = items.get("items").unwrap_or(items);
    array(items)
        .iter()
        .filter_map(|item| item["label"].as_str().map(str::to_owned))
        .collect()
}

const INVENTORY: &str = r#"
[hosts.esx01]
address = "sim:esxi7"
groups = ["esxi"]
"#;

/// A runbook in a lab with the shipped modules in `lib/` and an inventory.
fn lab_with(runbook: &str) -> (Lab, String) {
    let lab = Lab::new();
    lab.copy_lib();
    lab.write("inventory.toml", INVENTORY);
    let path = lab.write("mine.rhai", runbook);
    (lab, url(&path))
}

const TYPO: &str = r#"import "connectx" as cx;

param mtu = 9000;

stage "mtu" on esxy {
    runn(["esxcli", "network", "ip", "interface", "list"]);
}
"#;

#[test]
fn lsp_publishes_the_checkers_diagnostics_with_spans_and_did_you_mean() {
    let (lab, uri) = lab_with(TYPO);
    let (mut client, init) = Client::start(&lab, json!({}));
    assert_eq!(init["capabilities"]["definitionProvider"], true, "{init}");
    client.open(&uri, TYPO);
    let diagnostics = client.diagnostics(&uri);
    let typo = diagnostics
        .iter()
        .find(|d| d["message"].as_str().is_some_and(|m| m.contains("`runn`")))
        .unwrap_or_else(|| panic!("no diagnostic for `runn`: {diagnostics:?}"));
    assert_eq!(
        typo["range"]["start"],
        json!({"line": 5, "character": 4}),
        "{typo}"
    );
    assert_eq!(
        typo["range"]["end"],
        json!({"line": 5, "character": 8}),
        "{typo}"
    );
    assert_eq!(typo["severity"], 1, "{typo}");
    assert!(
        typo["message"]
            .as_str()
            .is_some_and(|m| m.contains("did you mean `run`?")),
        "{typo}"
    );
    // The workspace's inventory.toml has the group `esxi`: the stage's `esxy` is refused.
    let group = diagnostics
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("group `esxy`"))
        })
        .unwrap_or_else(|| panic!("no diagnostic for the group: {diagnostics:?}"));
    assert_eq!(
        group["range"]["start"],
        json!({"line": 4, "character": 15}),
        "{group}"
    );
    assert!(
        group["message"]
            .as_str()
            .is_some_and(|m| m.contains("did you mean `esxi`?")),
        "{group}"
    );
    // Fixed in the editor, unsaved: the same document is clean.
    let fixed = TYPO.replace("runn(", "run(").replace("esxy", "esxi");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(client.diagnostics(&uri), Vec::<Value>::new());
    client.shut_down();
}

#[test]
fn lsp_publishes_a_mistyped_method_with_did_you_mean() {
    let text = "stage \"s\" on esxi {\n    let s = \"abc\";\n    log(s.contians(\"b\"));\n}\n";
    let (lab, uri) = lab_with(text);
    let (mut client, _) = Client::start(&lab, json!({}));
    client.open(&uri, text);
    let diagnostics = client.diagnostics(&uri);
    let [typo] = diagnostics.as_slice() else {
        panic!("one diagnostic: {diagnostics:?}");
    };
    assert_eq!(
        typo["range"]["start"],
        json!({"line": 2, "character": 10}),
        "{typo}"
    );
    let message = typo["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("unknown method `.contians(...)`"),
        "{typo}"
    );
    assert!(message.contains("did you mean `contains`?"), "{typo}");
    client.shut_down();
}

/// The frames of the issue: a length of 10^15 with two bytes after it, one of 2^64-1, a body
/// that is no JSON; then JSON that is no message. Each is answered with JSON-RPC's error, and
/// the server reads on: the document opened after each is checked.
#[test]
fn lsp_answers_unreadable_frames_with_json_rpc_errors_and_reads_on() {
    let (lab, uri) = lab_with(TYPO);
    let (mut client, _) = Client::start(&lab, json!({}));
    let no_message = r#"{"jsonrpc":"2.0","id":7,"method":42}"#;
    for (frame, code, id, why) in [
        (
            "Content-Length: 1000000000000000\r\n\r\n{}".to_owned(),
            -32700,
            Value::Null,
            "over the 64 MiB the server reads",
        ),
        (
            format!("Content-Length: {}\r\n\r\n{{}}", u64::MAX),
            -32700,
            Value::Null,
            "over the 64 MiB the server reads",
        ),
        (
            "Content-Length: 9\r\n\r\n{\"jsonrpc".to_owned(),
            -32700,
            Value::Null,
            "a body that is no JSON",
        ),
        (
            format!("Content-Length: {}\r\n\r\n{no_message}", no_message.len()),
            -32600,
            json!(7),
            "no request, response or notification",
        ),
    ] {
        client.send_raw(frame.as_bytes());
        let error = client.error();
        assert_eq!(error["id"], id, "{error}");
        assert_eq!(error["error"]["code"], code, "{error}");
        let message = error["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{why}: {error}");
        client.open(&uri, TYPO);
        let diagnostics = client.diagnostics(&uri);
        assert!(
            diagnostics
                .iter()
                .any(|d| d["message"].as_str().is_some_and(|m| m.contains("`runn`"))),
            "after {frame:?}: {diagnostics:?}"
        );
    }
    client.shut_down();
}

const COMPLETE: &str = r#"import "connectx" as cx;

param mtu = 9000;

stage "query" on esxi {
    let q = mlxconfig::;
    run(["true"], #{ allow_fail: true, });
    let ports = cx::;
}
stage "next" on 
"#;

#[test]
fn lsp_completes_namespaces_option_keys_module_functions_params_and_groups() {
    let (lab, uri) = lab_with(COMPLETE);
    let (mut client, _) = Client::start(&lab, json!({}));
    client.open(&uri, COMPLETE);
    let after_namespace =
        labels(&client.at("textDocument/completion", &uri, COMPLETE, "mlxconfig::|;"));
    for expected in ["query", "set"] {
        assert!(
            after_namespace.iter().any(|l| l == expected),
            "{after_namespace:?}"
        );
    }
    assert!(
        !after_namespace.iter().any(|l| l == "run"),
        "{after_namespace:?}"
    );
    let options = labels(&client.at(
        "textDocument/completion",
        &uri,
        COMPLETE,
        "allow_fail: true, |",
    ));
    assert!(options.iter().any(|l| l == "allow_fail"), "{options:?}");
    assert!(!options.iter().any(|l| l == "run"), "{options:?}");
    let module = labels(&client.at("textDocument/completion", &uri, COMPLETE, "cx::|;"));
    assert!(module.iter().any(|l| l == "ports"), "{module:?}");
    let groups = labels(&client.at("textDocument/completion", &uri, COMPLETE, "\"next\" on |"));
    assert!(groups.iter().any(|l| l == "esxi"), "{groups:?}");
    let anywhere = labels(&client.at("textDocument/completion", &uri, COMPLETE, "    |let q"));
    for expected in ["run", "mlxconfig", "mtu", "cx", "stage"] {
        assert!(
            anywhere.iter().any(|l| l == expected),
            "{expected} not in {anywhere:?}"
        );
    }
    client.shut_down();
}

const NAVIGATE: &str = r#"import "connectx" as cx;

param family = "ConnectX5";

stage "ports" on esxi {
    let devices = mst::status();
    let ports = cx::ports(devices, family);
    run(["esxcli", "network", "nic", "list"]);
}
"#;

#[test]
fn lsp_hovers_with_the_builtins_help_and_goes_to_definitions_in_lib() {
    let (lab, uri) = lab_with(NAVIGATE);
    let (mut client, _) = Client::start(&lab, json!({}));
    client.open(&uri, NAVIGATE);
    let hover = client.at("textDocument/hover", &uri, NAVIGATE, "r|un([\"esxcli\"");
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("run(argv: array, options: map) -> map"),
        "{hover}"
    );
    assert!(
        text.contains("Runs a command on the current host."),
        "{hover}"
    );
    let help = client.at(
        "textDocument/signatureHelp",
        &uri,
        NAVIGATE,
        "run([\"esxcli\", |",
    );
    assert!(
        help["signatures"].to_string().contains("run(argv: array"),
        "{help}"
    );
    let module = url(&lab.path().join("lib/connectx.rhai"));
    let definition = client.at("textDocument/definition", &uri, NAVIGATE, "cx::po|rts(");
    assert_eq!(definition["uri"], module, "{definition}");
    let connectx =
        std::fs::read_to_string(lab.path().join("lib/connectx.rhai")).unwrap_or_default();
    let fn_line = connectx
        .lines()
        .position(|l| l.starts_with("fn ports("))
        .unwrap_or(usize::MAX);
    assert_eq!(
        definition["range"]["start"]["line"], fn_line,
        "{definition}"
    );
    let import = client.at(
        "textDocument/definition",
        &uri,
        NAVIGATE,
        "import \"conn|ectx\"",
    );
    assert_eq!(import["uri"], module, "{import}");
    let on_module = client.at("textDocument/hover", &uri, NAVIGATE, "cx::po|rts(");
    assert!(
        on_module.to_string().contains("in PCI order"),
        "{on_module}"
    );
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["family", "ports"], "{symbols}");
    client.shut_down();
}

#[test]
fn the_vs_code_extension_starts_cairn_lsp_with_the_grammar_it_names() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/vscode");
    let read = |name: &str| -> Value {
        let text =
            std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let manifest = read("package.json");
    let grammar = &manifest["contributes"]["grammars"][0];
    let path = grammar["path"].as_str().unwrap_or_default();
    let grammar_file = read(path);
    assert_eq!(
        grammar_file["scopeName"], grammar["scopeName"],
        "{grammar_file}"
    );
    let patterns = grammar_file["repository"]
        .as_object()
        .map(|r| r.len())
        .unwrap_or(0);
    assert!(patterns >= 5, "{grammar_file}");
    let main = manifest["main"].as_str().unwrap_or_default();
    let extension = std::fs::read_to_string(dir.join(main)).unwrap_or_default();
    assert!(extension.contains("args: [\"lsp\"]"), "{extension}");
    assert_eq!(
        manifest["contributes"]["languages"][0]["extensions"][0],
        ".rhai"
    );
}
