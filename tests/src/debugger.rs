//! The runbook debugger driven as a person would, through a pseudo-terminal: `:load` and
//! breakpoints in the REPL, `cairn debug`, and `cairn run --debug-on-failure`.

use std::path::PathBuf;

use cairn_tests::{Lab, records};
use rexpect::session::{PtySession, spawn_command};

/// A runbook whose lines the tests name: line 4 echoes, line 5 runs `hostname`, line 11 is
/// the second stage's last action.
const BOOK: &str = r#"param greeting = "hello";

stage "prepare" on compute {
    run(["echo", greeting]);
    let name = run(["hostname"]);
    log(`on ${name.stdout}`);
}

stage "check" on compute {
    run(["true"]);
    run(["echo", "done"]);
}
"#;

/// One host whose first `hostname` fails (a sim fault), on a virtual clock.
const LAB: &str = r#"[hosts.n1]
address = "sim:linux?clock=virtual&fail_once=hostname"
groups = ["compute"]
"#;

fn spawn(lab: &Lab, args: &[&str]) -> PtySession {
    let mut command = lab.command(args);
    command
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm");
    spawn_command(command, Some(20_000)).unwrap_or_else(|e| panic!("spawn: {e}"))
}

fn expect(p: &mut PtySession, text: &str) -> String {
    p.exp_string(text)
        .unwrap_or_else(|e| panic!("expected `{text}`: {e}"))
}

fn say(p: &mut PtySession, line: &str) {
    p.send_line(line)
        .unwrap_or_else(|e| panic!("send `{line}`: {e}"));
}

/// The 1-based number of the line of `file` that holds `code`.
fn line_of(file: &std::path::Path, code: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines()
        .position(|l| l.contains(code))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{} has no `{code}`", file.display()))
}

fn recipe(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../runbooks")
        .join(name)
}

#[test]
fn a_person_loads_a_recipe_breaks_at_a_stage_and_steps_through_its_actions() {
    let lab = Lab::new();
    let mut p = spawn(&lab, &["repl", "--sim", "esxi7?clock=virtual"]);
    expect(&mut p, "sim-esxi7> ");
    let book = recipe("esxi-ib-roce-ports.rhai");
    say(
        &mut p,
        &format!(":load {} update_firmware=false", book.display()),
    );
    expect(&mut p, "loaded");
    say(
        &mut p,
        ":break 2.2.2 install the native Mellanox ESXi driver",
    );
    expect(
        &mut p,
        "breakpoint at stage `2.2.2 install the native Mellanox ESXi driver`",
    );
    say(&mut p, ":continue");
    expect(
        &mut p,
        "breakpoint at stage `2.2.2 install the native Mellanox ESXi driver`: stage `2.2.2 install the native Mellanox ESXi driver` begins",
    );
    // At a stage the runbook's variables are those of the stage: the params among them.
    say(&mut p, ":vars");
    expect(&mut p, "runbook:");
    expect(
        &mut p,
        "nmlx_bundle = /vmfs/volumes/nfs/mellanox/Mellanox-nmlx5",
    );
    say(&mut p, ":step");
    expect(&mut p, "before action #");
    expect(
        &mut p,
        "(stage `2.2.2 install the native Mellanox ESXi driver`)",
    );
    say(&mut p, ":where");
    expect(&mut p, "runbook ");
    expect(&mut p, "before action #");
    say(&mut p, ":step");
    expect(&mut p, "before action #");
    // While paused, what is typed runs on the same host: MFT is installed by stage 2.2.1.
    // The answer on its own line: the paused action (`maintenance_mode_set {"on":true}`)
    // holds the word too.
    say(&mut p, r#"esxcli::vib_installed("mft")"#);
    expect(&mut p, "\ntrue");
    // The recipe's steps live in runbooks/lib/vsphere.rhai: a line of the recipe that calls
    // into it is refused, a line of the module is a breakpoint that stops.
    let calls_into = line_of(&book, "vsphere::set_link_types();");
    say(&mut p, &format!(":break {calls_into}"));
    expect(&mut p, "calls into the module `vsphere`");
    let module_line = line_of(
        &recipe("lib/vsphere.rhai"),
        "mlxconfig::set(dev, #{ LINK_TYPE_P1: 1 });",
    );
    say(&mut p, &format!(":break vsphere:{module_line}"));
    expect(&mut p, &format!("breakpoint at line {module_line} of "));
    say(&mut p, ":continue");
    expect(&mut p, ": before action #");
    expect(
        &mut p,
        "mlxconfig::set {\"device\":\"mt4119_pciconf1\",\"values\":{\"LINK_TYPE_P1\":1}}",
    );
    // The stop, and `:where` after it, tell the story: the module's line, then the recipe
    // line that called into it.
    let called_from = format!(
        "`set_link_types` called from {}:{calls_into}:",
        book.display()
    );
    expect(&mut p, &called_from);
    expect(&mut p, &format!("@{module_line}> "));
    say(&mut p, ":where");
    expect(&mut p, "runbook ");
    expect(&mut p, &format!("lib/vsphere.rhai:{module_line}:"));
    expect(&mut p, &called_from);
    expect(&mut p, &format!("@{module_line}> "));
    say(&mut p, ":quit");
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
}

#[test]
fn cairn_debug_stops_before_the_first_action_and_at_a_line_and_retries_a_failure() {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("lab.toml", LAB);
    let mut p = spawn(
        &lab,
        &["debug", "book.rhai", "-i", "lab.toml", "--host", "n1"],
    );
    expect(&mut p, "before action #1 `run echo hello` at book.rhai:4:5");
    expect(&mut p, "run([\"echo\", greeting]);");
    say(&mut p, ":break 9999");
    expect(&mut p, "has no line 9999: it has 12");
    say(&mut p, ":break 2");
    expect(&mut p, "line 2 holds no code");
    say(&mut p, ":break 11");
    expect(&mut p, "breakpoint at line 11");
    // A breakpoint set then removed does not stop the runbook (line 10 runs `true`).
    say(&mut p, ":break 10");
    expect(&mut p, "breakpoint at line 10");
    say(&mut p, ":unbreak 10");
    expect(&mut p, "no breakpoint at line 10 any more");
    say(&mut p, ":unbreak 10");
    expect(&mut p, "there was no breakpoint at line 10");
    say(&mut p, ":continue");
    // The simulator fails the first `hostname`: the prompt offers retry, skip, abort.
    expect(&mut p, "action #2 `run hostname` failed on `n1`");
    expect(&mut p, "injected failure");
    say(&mut p, ":step");
    expect(&mut p, "the action failed: :retry, :skip [VALUE] or :abort");
    say(&mut p, ":retry");
    expect(
        &mut p,
        "breakpoint at line 11: before action #4 `run echo done`",
    );
    say(&mut p, ":continue");
    expect(&mut p, "the runbook finished on `n1`");
    say(&mut p, ":journal");
    expect(&mut p, "debugger: Retry");
    say(&mut p, ":quit");
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
    // The retry ran `hostname` again; the stage's earlier `echo` ran once.
    assert_eq!(lab.sim_count("n1", &["hostname"]), 2);
    assert_eq!(lab.sim_count("n1", &["echo", "hello"]), 1);
    assert!(lab.runs().is_empty(), "a debugging session is not a run");
}

/// Two hosts whose first `hostname` fails; `n1`'s first `true` fails too.
const FLEET: &str = r#"[hosts.n1]
address = "sim:linux?clock=virtual&fail_once=hostname,true"
groups = ["compute"]

[hosts.n2]
address = "sim:linux?clock=virtual&fail_once=hostname"
groups = ["compute"]
"#;

const FLEET_BOOK: &str = r#"stage "one" on compute {
    let r = run(["hostname"]);
    run(["echo", `code ${r.code}`]);
    run(["true"]);
}
"#;

#[test]
fn debug_on_failure_asks_one_host_at_a_time_and_a_skip_replays_on_resume() {
    let lab = Lab::new();
    lab.write("book.rhai", FLEET_BOOK);
    lab.write("lab.toml", FLEET);
    let mut p = spawn(
        &lab,
        &["run", "book.rhai", "-i", "lab.toml", "--debug-on-failure"],
    );
    let mut skipped = None;
    let mut aborted = false;
    for _ in 0..3 {
        let (_, found) = p
            .exp_regex(r"action #\d+ `run (hostname|true)` failed on `(n\d)`")
            .unwrap_or_else(|e| panic!("a debug prompt: {e}"));
        let host = if found.ends_with("`n1`") { "n1" } else { "n2" };
        expect(&mut p, &format!("{host} (failed)> "));
        if found.contains("run true") {
            say(&mut p, ":abort");
            expect(&mut p, "aborting");
            aborted = true;
        } else if skipped.is_none() {
            say(&mut p, r#":skip #{code: 7, stdout: "", stderr: ""}"#);
            expect(&mut p, "skipping the action: it returns");
            skipped = Some(host);
        } else {
            say(&mut p, ":retry");
            expect(&mut p, "retrying the action");
        }
    }
    assert!(aborted, "n1's failed `true` was asked about");
    expect(&mut p, "1 done, 1 failed");
    p.exp_eof().unwrap_or_else(|e| panic!("end: {e}"));

    let skipped = skipped.unwrap_or_else(|| panic!("a host was skipped"));
    let journal = lab.journal(skipped);
    let choices: Vec<&str> = records(&journal, "debug")
        .iter()
        .filter_map(|r| r["data"]["choice"].as_str())
        .collect();
    assert!(choices.first() == Some(&"skip"), "{choices:?}");
    assert!(
        records(&journal, "outcome")
            .iter()
            .any(|r| r["data"]["how"] == "skipped" && r["data"]["result"]["code"] == 7),
        "the skip is the action's outcome"
    );
    let echoes = |journal: &[serde_json::Value]| {
        records(journal, "intent")
            .iter()
            .filter(|r| r["data"]["args"]["argv"][0] == "echo")
            .map(|r| {
                r["data"]["args"]["argv"][1]
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(echoes(&journal), ["code 7"]);

    // The resume replays the skipped action with its value (the echo's arguments match) and
    // runs n1's failed `true` again.
    lab.cairn(&["resume"]).succeeds();
    let journal = lab.journal(skipped);
    assert_eq!(echoes(&journal), ["code 7"], "nothing ran again");
    assert_eq!(lab.sim_count(skipped, &["hostname"]), 1);
}

#[test]
fn debug_on_failure_needs_a_terminal() {
    let lab = Lab::new();
    lab.write("book.rhai", FLEET_BOOK);
    lab.write("lab.toml", FLEET);
    lab.assert_fails(
        &["run", "book.rhai", "-i", "lab.toml", "--debug-on-failure"],
        2,
        &["needs a terminal"],
    );
    assert!(lab.runs().is_empty(), "nothing ran");
}

#[test]
fn next_runs_to_the_next_stage_and_abort_stops_the_runbook_there() {
    let lab = Lab::new();
    lab.write("book.rhai", BOOK);
    lab.write("lab.toml", LAB);
    let mut p = spawn(&lab, &["repl", "-i", "lab.toml", "--host", "n1"]);
    expect(&mut p, "n1> ");
    say(&mut p, ":load book.rhai nope=1");
    expect(&mut p, "the runbook declares no param `nope`");
    say(&mut p, ":step");
    expect(&mut p, "no runbook loaded");
    say(&mut p, ":load book.rhai greeting=hi");
    expect(&mut p, "loaded book.rhai on `n1`");
    say(&mut p, ":where");
    expect(&mut p, "not started: :step, :next or :continue");
    say(&mut p, ":next");
    expect(&mut p, "stage `prepare` begins at book.rhai:3");
    say(&mut p, ":step");
    expect(&mut p, "before action #1 `run echo hi`");
    say(&mut p, ":retry");
    expect(&mut p, "no action failed here");
    say(&mut p, ":abort");
    expect(&mut p, "aborting");
    expect(&mut p, "the runbook ended (Failed) on `n1`");
    expect(&mut p, "stopped in the debugger");
    say(&mut p, ":quit");
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
    assert_eq!(lab.sim_count("n1", &["echo"]), 0, "nothing ran");
}

/// `cairn debug --host` on one ESXi host of the tuning recipe's lab: the runbook's `vhpc::`
/// steps reach vCenter, the management host the host's var `vhpc_host` names, instead of
/// failing at the first of them.
#[test]
fn debugging_one_esxi_host_reaches_the_management_host_its_vars_name() {
    let lab = Lab::shipped();
    let mut p = spawn(
        &lab,
        &[
            "debug",
            "runbooks/esxi-hpc-tuning.rhai",
            "-i",
            "runbooks/labs/esxi-4.toml",
            "--host",
            "esx01",
        ],
    );
    expect(&mut p, "before action #1");
    say(&mut p, ":continue");
    expect(&mut p, "the runbook finished on `esx01`");
    say(&mut p, ":quit");
}
