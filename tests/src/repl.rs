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

#[test]
fn mft_installs_from_the_repl_with_the_file_names_of_the_builtin_docs() {
    let lab = Lab::new();
    let mut command = std::process::Command::new(binary("cairn"));
    command
        .current_dir(lab.path())
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm")
        .args(["repl", "--sim", "esxi7?clock=virtual"]);
    let mut p = spawn_command(command, Some(20_000)).unwrap_or_else(|e| panic!("spawn: {e}"));
    p.exp_string("sim-esxi7> ")
        .unwrap_or_else(|e| panic!("prompt: {e}"));
    p.send_line(r#"esxcli::vib_installed("mft")"#)
        .unwrap_or_default();
    p.exp_string("false")
        .unwrap_or_else(|e| panic!("not installed yet: {e}"));
    // The paths of docs/builtins.md, as a person would paste them.
    p.send_line(r#"esxcli::vib_install("/vmfs/volumes/nfs/mellanox/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib").vibs_installed"#)
        .unwrap_or_default();
    p.exp_string("MEL_bootbank_mft_4.22.1.11-10EM")
        .unwrap_or_else(|e| panic!("installed: {e}"));
    p.send_line(r#"esxcli::vib_install("/vmfs/volumes/nfs/mellanox/nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", #{ force: true }).changed"#)
        .unwrap_or_default();
    p.exp_string("true")
        .unwrap_or_else(|e| panic!("nmst installed: {e}"));
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
    p.exp_string("\"True\"")
        .unwrap_or_else(|e| panic!("mlxconfig::query completed and ran: {e}"));
    p.send_line(":quit").unwrap_or_default();
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
}

/// Types `text` a key at a time, as a person does.
fn type_slowly(p: &mut rexpect::session::PtySession, text: &str) {
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
    let mut p = repl(&lab);
    type_slowly(&mut p, "fn twice(a) { a * 2 }\r");
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("fn: {e}"));
    type_slowly(&mut p, "let k = 5; let add = |x| x + k;\r");
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("closure: {e}"));
    type_slowly(&mut p, "twice(4) + add.call(1)\r");
    p.exp_string("14")
        .unwrap_or_else(|e| panic!("both still defined: {e}"));

    type_slowly(&mut p, ":help run\r");
    p.exp_string("run(argv: array, options: map) -> map")
        .unwrap_or_else(|e| panic!("help signature: {e}"));
    p.exp_string("Runs a command on the current host.")
        .unwrap_or_else(|e| panic!("help text: {e}"));
    type_slowly(&mut p, ":help mlxconfig::set\r");
    p.exp_string("mlxconfig::set(dev: string, values: map) -> map")
        .unwrap_or_else(|e| panic!("vendor help: {e}"));

    // An array of maps offers the array's methods, not the maps' keys.
    type_slowly(&mut p, "let devs = [#{pci: \"3b:00.0\"}];\r");
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("devs: {e}"));
    type_slowly(&mut p, "devs.p\t\t");
    let (_, listed) = p
        .exp_regex("pad\\s+pop[^\\n]*push")
        .unwrap_or_else(|e| panic!("second Tab lists: {e}"));
    assert!(!listed.contains("pci"), "{listed}");
    p.send_control('u').unwrap_or_default();
    // Tab completes the common prefix of a string's methods, then lists them.
    type_slowly(&mut p, "\rlet s = \" up \";\r");
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("s: {e}"));
    type_slowly(&mut p, "s.tri\t");
    std::thread::sleep(std::time::Duration::from_millis(200));
    type_slowly(&mut p, "\t");
    p.exp_regex("trim\\s+trimmed")
        .unwrap_or_else(|e| panic!("string methods: {e}"));
    type_slowly(&mut p, "med()\r");
    p.exp_string("\"up\"")
        .unwrap_or_else(|e| panic!("trimmed(): {e}"));
    p.send_line(":quit").unwrap_or_default();
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
}

#[test]
fn a_repl_on_an_inventory_sees_its_groups_and_patterns() {
    let lab = Lab::new();
    lab.write(
        "lab.toml",
        "[hosts.\"esx[01-02]\"]\naddress = \"sim:esxi7?clock=virtual\"\ngroups = [\"esxi\"]\n\n[hosts.node01]\naddress = \"sim:linux?clock=virtual\"\ngroups = [\"compute\"]\n",
    );
    let mut command = std::process::Command::new(binary("cairn"));
    command
        .current_dir(lab.path())
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm")
        .args(["repl", "-i", "lab.toml", "--host", "node01"]);
    let mut p = spawn_command(command, Some(10_000)).unwrap_or_else(|e| panic!("spawn: {e}"));
    p.exp_string("node01> ")
        .unwrap_or_else(|e| panic!("prompt: {e}"));
    type_slowly(&mut p, "hosts(\"esxi\").map(|h| h.name)\r");
    p.exp_string("esx01")
        .unwrap_or_else(|e| panic!("esx01: {e}"));
    p.exp_string("esx02")
        .unwrap_or_else(|e| panic!("esx02: {e}"));
    type_slowly(&mut p, ":hosts esx*:!esx01\r");
    p.exp_regex("esx02\\s+sim:esxi7")
        .unwrap_or_else(|e| panic!(":hosts PATTERN: {e}"));
    type_slowly(&mut p, ":hosts esk01\r");
    p.exp_string("did you mean `esx01`?")
        .unwrap_or_else(|e| panic!(":hosts typo: {e}"));
    p.send_line(":quit").unwrap_or_default();
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
}

#[test]
fn ctrl_c_stops_a_running_command_at_once_and_keeps_what_was_typed() {
    let lab = Lab::new();
    let mut command = std::process::Command::new(binary("cairn"));
    command
        .current_dir(lab.path())
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm")
        // A real clock: `sleep 30` would take thirty seconds.
        .args(["repl", "--sim", "linux"]);
    let mut p = spawn_command(command, Some(10_000)).unwrap_or_else(|e| panic!("spawn: {e}"));
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("prompt: {e}"));
    p.send_line(r#"run(["sleep", "30"])"#).unwrap_or_default();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Typed ahead while the command runs.
    type_slowly(&mut p, "40 + 2");
    let pressed = std::time::Instant::now();
    p.send_control('c').unwrap_or_default();
    p.exp_string("was stopped while it ran")
        .unwrap_or_else(|e| panic!("stopped: {e}"));
    p.exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("back: {e}"));
    assert!(
        pressed.elapsed() < std::time::Duration::from_secs(5),
        "back at the prompt after {:?}",
        pressed.elapsed()
    );
    // (Not a speed target: without the interrupt the command would take thirty seconds.)
    // The line typed during the command is still there: Enter evaluates it.
    p.send_line("").unwrap_or_default();
    p.exp_string("42")
        .unwrap_or_else(|e| panic!("type-ahead kept: {e}"));
    p.send_line(":quit").unwrap_or_default();
    p.exp_eof().unwrap_or_else(|e| panic!("quit: {e}"));
}
