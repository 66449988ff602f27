//! The REPL driven as a person would, through a pseudo-terminal.

use cairn_tests::{Lab, binary};
use rexpect::session::{PtySession, spawn_command};

/// `cairn repl ARGS` in the lab on a pseudo-terminal, at its first `prompt`; each expected text
/// may take `timeout_ms`.
fn repl(lab: &Lab, args: &[&str], prompt: &str, timeout_ms: u64) -> PtySession {
    let mut command = std::process::Command::new(binary("cairn"));
    command
        .current_dir(lab.path())
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm")
        .arg("repl")
        .args(args);
    let mut session =
        spawn_command(command, Some(timeout_ms)).unwrap_or_else(|e| panic!("spawn: {e}"));
    expect(&mut session, prompt, "prompt");
    session
}

/// `cairn repl --sim SIM` in the lab, at its prompt `sim-MODEL> `.
fn sim_repl(lab: &Lab, sim: &str, timeout_ms: u64) -> PtySession {
    let model = sim.split('?').next().unwrap_or_default();
    repl(lab, &["--sim", sim], &format!("sim-{model}> "), timeout_ms)
}

/// Waits for `text`, failing with `what` when it does not come.
fn expect(p: &mut PtySession, text: &str, what: &str) {
    p.exp_string(text).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Waits for a text matching `regex`, failing with `what` when none comes; returns the match.
fn expect_regex(p: &mut PtySession, regex: &str, what: &str) -> String {
    let (_, matched) = p.exp_regex(regex).unwrap_or_else(|e| panic!("{what}: {e}"));
    matched
}

/// Leaves the REPL, which must then end.
fn quit(p: &mut PtySession) {
    p.send_line(":quit").unwrap_or_default();
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
}

#[test]
fn a_person_evaluates_completes_and_sees_errors_with_their_span() {
    let lab = Lab::new();
    let mut p = sim_repl(&lab, "linux?clock=virtual", 10_000);
    p.send_line(r#"let r = run(["echo", "hello from the host"]);"#)
        .unwrap_or_default();
    expect(&mut p, "sim-linux> ", "after let");
    p.send_line("r.stdout").unwrap_or_default();
    expect(&mut p, "hello from the host", "persistent scope");

    // Tab completes a builtin.
    p.send("r.stdout.trimm").unwrap_or_default();
    p.send("\t").unwrap_or_default();
    p.send_line("()").unwrap_or_default();
    expect(&mut p, "\"hello from the host\"", "completed trimmed()");

    // An open brace continues the input; the error points into it.
    p.send_line("if true {").unwrap_or_default();
    p.send_line(r#"  run(["false"])"#).unwrap_or_default();
    p.send_line("}").unwrap_or_default();
    expect(&mut p, "`false` exited with 1", "error");
    expect(&mut p, "input:2:3", "span");

    // A list of maps is a table.
    p.send_line(r#"[#{mst: "mt4119_pciconf1", pci: "3b:00.0"}, #{mst: "mt4119_pciconf1.1", pci: "3b:00.1"}]"#)
        .unwrap_or_default();
    expect(&mut p, "mt4119_pciconf1.1  3b:00.1", "table");

    // The session's own journal holds what was done.
    p.send_line(":journal").unwrap_or_default();
    expect(
        &mut p,
        r#"run {"argv":["echo","hello from the host"]}"#,
        "journal",
    );
    quit(&mut p);
    assert!(lab.path().join("cairn/history").exists(), "history saved");
}

#[test]
fn mft_installs_from_the_repl_with_the_file_names_of_the_builtin_docs() {
    let lab = Lab::new();
    let mut p = sim_repl(&lab, "esxi7?clock=virtual", 20_000);
    p.send_line(r#"esxcli::vib_installed("mft")"#)
        .unwrap_or_default();
    expect(&mut p, "false", "not installed yet");
    // The paths of docs/builtins.md, as a person would paste them.
    p.send_line(r#"esxcli::vib_install("/vmfs/volumes/nfs/mellanox/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib").vibs_installed"#)
        .unwrap_or_default();
    expect(&mut p, "MEL_bootbank_mft_4.22.1.11-10EM", "installed");
    p.send_line(r#"esxcli::vib_install("/vmfs/volumes/nfs/mellanox/nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", #{ force: true }).changed"#)
        .unwrap_or_default();
    expect(&mut p, "true", "nmst installed");
    // Each answer, then the next prompt, then a pause: at a new prompt rustyline asks the
    // terminal where its cursor is and reads the reply for 100 ms; a pseudo-terminal does not
    // reply, so what is typed within that time would be read as the reply.
    let mut ask = |line: &str, answer: &str| {
        p.send_line(line).unwrap_or_default();
        p.exp_string(answer)
            .unwrap_or_else(|e| panic!("{line} answers {answer}: {e}"));
        p.exp_string("sim-esxi7> ")
            .unwrap_or_else(|e| panic!("prompt after {line}: {e}"));
        std::thread::sleep(std::time::Duration::from_millis(300));
    };
    ask("reboot_if_pending()", "\r\ntrue\r\n");
    // Before `mst start` the service lists nothing, as on a real host.
    ask("mst::status().len()", "\r\n0\r\n");
    ask("mst::start()", "changed: true");
    // The devices as a table: one row per port, with its mst device and PCI address.
    ask("mst::status()", "mt4119_pciconf1.1  ");
    // Tab completes a module's function.
    p.send("mlxconfig::qu").unwrap_or_default();
    p.send("\t").unwrap_or_default();
    p.send_line(r#"("mt4119_pciconf1").params.SRIOV_EN.current.label"#)
        .unwrap_or_default();
    expect(&mut p, "\"True\"", "mlxconfig::query completed and ran");
    quit(&mut p);
}

/// Types `text` a key at a time, as a person does.
fn type_slowly(p: &mut PtySession, text: &str) {
    for c in text.chars() {
        if c == '\r' {
            p.send_line("").unwrap_or_default();
        } else {
            p.send(&c.to_string()).unwrap_or_default();
            p.flush().unwrap_or_default();
        }
        std::thread::sleep(std::time::Duration::from_millis(15));
    }
}

#[test]
fn functions_stay_defined_help_has_names_and_completion_lists_only_real_members() {
    let lab = Lab::new();
    let mut p = sim_repl(&lab, "linux?clock=virtual", 10_000);
    type_slowly(&mut p, "fn twice(a) { a * 2 }\r");
    expect(&mut p, "sim-linux> ", "fn");
    type_slowly(&mut p, "let k = 5; let add = |x| x + k;\r");
    expect(&mut p, "sim-linux> ", "closure");
    type_slowly(&mut p, "twice(4) + add.call(1)\r");
    expect(&mut p, "14", "both still defined");

    type_slowly(&mut p, ":help run\r");
    expect(
        &mut p,
        "run(argv: array, options: map) -> map",
        "help signature",
    );
    expect(&mut p, "Runs a command on the current host.", "help text");
    type_slowly(&mut p, ":help mlxconfig::set\r");
    expect(
        &mut p,
        "mlxconfig::set(dev: string, values: map) -> map",
        "vendor help",
    );

    // An array of maps offers the array's methods, not the maps' keys.
    type_slowly(&mut p, "let devs = [#{pci: \"3b:00.0\"}];\r");
    expect(&mut p, "sim-linux> ", "devs");
    type_slowly(&mut p, "devs.p\t\t");
    let listed = expect_regex(&mut p, "pad\\s+pop[^\\n]*push", "second Tab lists");
    assert!(!listed.contains("pci"), "{listed}");
    p.send_control('u').unwrap_or_default();
    // Tab completes the common prefix of a string's methods, then lists them.
    type_slowly(&mut p, "\rlet s = \" up \";\r");
    expect(&mut p, "sim-linux> ", "s");
    type_slowly(&mut p, "s.tri\t");
    std::thread::sleep(std::time::Duration::from_millis(200));
    type_slowly(&mut p, "\t");
    expect_regex(&mut p, "trim\\s+trimmed", "string methods");
    type_slowly(&mut p, "med()\r");
    expect(&mut p, "\"up\"", "trimmed()");
    quit(&mut p);
}

#[test]
fn a_repl_on_an_inventory_sees_its_groups_and_patterns() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.\"esx[01-02]\"]\naddress = \"sim:esxi7?clock=virtual\"\ngroups = [\"esxi\"]\n\n[hosts.node01]\naddress = \"sim:linux?clock=virtual\"\ngroups = [\"compute\"]\n",
    );
    let mut p = repl(
        &lab,
        &["-i", "lab.toml", "--host", "node01"],
        "node01> ",
        10_000,
    );
    type_slowly(&mut p, "hosts(\"esxi\").map(|h| h.name)\r");
    expect(&mut p, "esx01", "esx01");
    expect(&mut p, "esx02", "esx02");
    type_slowly(&mut p, ":hosts esx*:!esx01\r");
    expect_regex(&mut p, "esx02\\s+sim:esxi7", ":hosts PATTERN");
    type_slowly(&mut p, ":hosts esk01\r");
    expect(&mut p, "did you mean `esx01`?", ":hosts typo");
    quit(&mut p);
}

#[test]
fn ctrl_c_stops_a_running_command_at_once_and_keeps_what_was_typed() {
    let lab = Lab::new();
    // A real clock: `sleep 30` would take thirty seconds.
    let mut p = sim_repl(&lab, "linux", 10_000);
    p.send_line(r#"run(["sleep", "30"])"#).unwrap_or_default();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Typed ahead while the command runs.
    type_slowly(&mut p, "40 + 2");
    let pressed = std::time::Instant::now();
    p.send_control('c').unwrap_or_default();
    expect(&mut p, "was stopped while it ran", "stopped");
    expect(&mut p, "sim-linux> ", "back");
    assert!(
        pressed.elapsed() < std::time::Duration::from_secs(5),
        "back at the prompt after {:?}",
        pressed.elapsed()
    );
    // (Not a speed target: without the interrupt the command would take thirty seconds.)
    // The line typed during the command is still there: Enter evaluates it.
    p.send_line("").unwrap_or_default();
    expect(&mut p, "42", "type-ahead kept");
    quit(&mut p);
}
