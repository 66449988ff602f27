//! The REPL driven as a person would, through a pseudo-terminal.

use cairn_tests::{Lab, binary};
use rexpect::session::spawn_command;

fn repl(lab: &Lab) -> rexpect::session::PtySession {
    let mut command = std::process::Command::new(binary("cairn"));
    command
        .current_dir(lab.path())
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm")
        .args(["repl", "--sim", "linux?clock=virtual"]);
    let mut session = spawn_command(command, Some(10_000)).unwrap_or_else(|e| panic!("spawn: {e}"));
    session
        .exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("prompt: {e}"));
    session
}

#[test]
fn a_person_evaluates_completes_and_sees_errors_with_their_span() {
    let lab = Lab::new();
    let mut p = repl(&lab);
    p.send_line(r#"let r = run(["echo", "hello from the host"]);"#)
        .unwrap_or_default();
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("after let: {e}"));
    p.send_line("r.stdout").unwrap_or_default();
    p.exp_string("hello from the host")
        .unwrap_or_else(|e| panic!("persistent scope: {e}"));

    // Tab completes a builtin.
    p.send("r.stdout.trimm").unwrap_or_default();
    p.send("\t").unwrap_or_default();
    p.send_line("()").unwrap_or_default();
    p.exp_string("\"hello from the host\"")
        .unwrap_or_else(|e| panic!("completed trimmed(): {e}"));

    // An open brace continues the input; the error points into it.
    p.send_line("if true {").unwrap_or_default();
    p.send_line(r#"  run(["false"])"#).unwrap_or_default();
    p.send_line("}").unwrap_or_default();
    p.exp_string("`false` exited with 1")
        .unwrap_or_else(|e| panic!("error: {e}"));
    p.exp_string("input:2:3")
        .unwrap_or_else(|e| panic!("span: {e}"));

    // A list of maps is a table.
    p.send_line(r#"[#{mst: "mt4119_pciconf1", pci: "3b:00.0"}, #{mst: "mt4119_pciconf1.1", pci: "3b:00.1"}]"#)
        .unwrap_or_default();
    p.exp_string("mt4119_pciconf1.1  3b:00.1")
        .unwrap_or_else(|e| panic!("table: {e}"));

    // The session's own journal holds what was done.
    p.send_line(":journal").unwrap_or_default();
    p.exp_string(r#"run {"argv":["echo","hello from the host"]}"#)
        .unwrap_or_else(|e| panic!("journal: {e}"));
    p.send_line(":quit").unwrap_or_default();
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
    assert!(lab.path().join("cairn/history").exists(), "history saved");
}
