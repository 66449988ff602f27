//! Diagnostics point at the file they are in, and a failure inside a module shows the calls
//! that led there, up to the runbook's line.

use cairn_tests::Lab;

/// A runbook whose line 4 calls a module function that calls another, whose `run` fails.
fn lab() -> Lab {
    let lab = Lab::new();
    lab.write(
        "lib/helper.rhai",
        "fn inner() {\n    run([\"false\"]);\n}\n\nfn configure() {\n    expect(check_mode() == false, \"cannot predict\");\n    inner();\n}\n",
    );
    lab.write(
        "book.rhai",
        "import \"helper\" as helper;\n\nstage \"a\" on all {\n    helper::configure();\n}\n",
    );
    lab.write("lab.toml", "[hosts.node01]\naddress = \"sim:linux\"\n");
    lab
}

#[test]
fn a_failure_inside_a_module_shows_the_calls_up_to_the_runbook_line() {
    let lab = lab();
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    let stderr = &run.stderr;
    assert!(
        stderr.contains("lib/helper.rhai:2:"),
        "the failure is in the module\n{stderr}"
    );
    let inner = stderr.find("called from lib/helper.rhai:7");
    let outer = stderr.find("called from book.rhai:4");
    assert!(inner.is_some() && outer.is_some(), "{stderr}");
    assert!(inner < outer, "innermost first\n{stderr}");
    assert!(stderr.contains("`configure` called here"), "{stderr}");
}

#[test]
fn check_modes_prediction_stop_names_the_module_file() {
    let lab = lab();
    let run = lab
        .cairn(&["run", "book.rhai", "-i", "lab.toml", "--check"])
        .succeeds();
    run.stdout_has("prediction stopped at lib/helper.rhai:6: cannot predict");
}

/// The help a failure shows is its error's own: `run`'s `allow_fail` under `run`, however the
/// runbook calls it (here through a function pointer, where the old check of the runbook text
/// for `run(` found `call` and said nothing), and a caught failure still reads as text.
#[test]
fn runs_allow_fail_help_follows_the_error_not_the_text_at_the_span() {
    let lab = Lab::new();
    lab.write("lab.toml", "[hosts.node01]\naddress = \"sim:linux\"\n");
    lab.write(
        "book.rhai",
        "stage \"s\" on all {\n    try { run([\"false\"]); } catch (e) { log(`caught ${e.code}: ${e}`); }\n    let command = Fn(\"run\");\n    command.call([\"false\"]);\n}\n",
    );
    let run = lab.cairn(&["run", "book.rhai", "-i", "lab.toml"]).fails(1);
    run.stdout_has("caught cairn::action::run_exited: `false` exited with 1");
    run.stderr_has("book.rhai:4:");
    run.stderr_has("help: pass #{ allow_fail: true } to `run` to accept a non-zero exit");
}
