//! `cairn.toml` and the user's config file: defaults for the options, found upwards, refused
//! at the span when wrong, and `cairn config` saying where each value came from.

use cairn_tests::Lab;

/// A lab whose project file names the inventory and the state folder, with one simulated host.
fn lab(defaults: &str) -> Lab {
    let lab = Lab::new();
    lab.write(
        "book.rhai",
        "stage \"a\" on all { run([\"echo\", \"hi\"]); }\n",
    );
    lab.write("labs/one.toml", "[hosts.node01]\naddress = \"sim:linux\"\n");
    lab.write("cairn.toml", &format!("[defaults]\n{defaults}"));
    lab
}

#[test]
fn the_project_file_gives_the_inventory_found_upwards_relative_to_itself() {
    let lab = lab("inventory = \"labs/one.toml\"\nstate-dir = \"state\"\n");
    lab.cairn(&["run", "book.rhai"]).succeeds();
    assert!(
        lab.path().join("state/runs").is_dir(),
        "the file's state-dir"
    );
    // From a folder below, the paths are still the file's.
    lab.write("sub/keep", "");
    lab.call(&["run", "../book.rhai"])
        .current_dir(lab.path().join("sub"))
        .run()
        .succeeds();
    assert!(
        !lab.path().join("sub/state").exists(),
        "state-dir is relative to cairn.toml"
    );
    // The command line wins over the file.
    lab.cairn(&["--state-dir", "other", "run", "book.rhai"])
        .succeeds();
    assert!(lab.path().join("other/runs").is_dir());
}

#[test]
fn the_state_folder_sits_beside_the_project_file_found_upwards() {
    let lab = lab("inventory = \"labs/one.toml\"\n");
    lab.write("sub/keep", "");
    let below = |args: &[&str]| lab.call(args).current_dir(lab.path().join("sub")).run();
    below(&["run", "../book.rhai"]).succeeds();
    assert!(lab.path().join(".cairn/runs").is_dir(), "beside cairn.toml");
    assert!(
        !lab.path().join("sub/.cairn").exists(),
        "not in the sub-folder"
    );
    // Both folders see the one run; the sub-folder's `cairn config` says where it is.
    let listed = |run: cairn_tests::Run| run.succeeds().stdout.lines().count();
    assert_eq!(listed(below(&["runs"])), listed(lab.cairn(&["runs"])));
    below(&["runs"]).stdout_has("book.rhai");
    below(&["config"]).stdout_has("built-in default, beside cairn.toml");
}

#[test]
fn cairn_config_prints_each_value_and_where_it_came_from() {
    let lab = lab("forks = 3\n");
    lab.write(
        ".config/cairn/config.toml",
        "[defaults]\nforks = 9\ncolor = \"never\"\n",
    );
    let shown = lab.cairn(&["config"]).succeeds();
    let line = |key: &str| {
        shown
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_default()
            .to_owned()
    };
    // The project's file wins over the user's.
    assert!(line("forks").contains(" 3 "), "{}", shown.stdout);
    assert!(line("forks").contains("cairn.toml:2)"), "{}", shown.stdout);
    assert!(line("color").contains("never"), "{}", shown.stdout);
    assert!(
        line("color").contains(".config/cairn/config.toml:3)"),
        "{}",
        shown.stdout
    );
    assert!(
        line("state-dir").contains("(built-in default)"),
        "{}",
        shown.stdout
    );
    assert!(
        line("max-unavailable").contains("(not set)"),
        "{}",
        shown.stdout
    );
    let with_env = lab.cairn_with(&["config"], &[("CAIRN_STATE_DIR", "elsewhere")]);
    with_env.stdout_has("environment CAIRN_STATE_DIR");
}

#[test]
fn an_unknown_key_is_refused_with_did_you_mean_at_its_span() {
    let lab = lab("inventory = \"labs/one.toml\"\nforsk = 4\n");
    for args in [&["run", "book.rhai"][..], &["config"]] {
        let run = lab.cairn(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        run.stderr_has("unknown key in [defaults] `forsk`");
        run.stderr_has("did you mean `forks`?");
        run.stderr_has("cairn.toml:3:1");
    }
    lab.write("cairn.toml", "[default]\nforks = 4\n");
    lab.assert_fails(
        &["config"],
        2,
        &["unknown section `default`", "did you mean `defaults`?"],
    );
}

#[test]
fn a_value_the_option_refuses_is_refused_at_the_value_in_the_file() {
    let lab = lab("inventory = \"labs/one.toml\"\nforks = 0\n");
    lab.assert_fails(
        &["run", "book.rhai"],
        2,
        &["invalid value '0' for '--forks'", "cairn.toml:3:9"],
    );
    assert!(!lab.path().join(".cairn/runs").exists(), "nothing ran");
    lab.write("cairn.toml", "[defaults]\ncolor = \"sometimes\"\n");
    let run = lab.cairn(&["config"]).fails(2);
    assert!(
        crate::refusals::unwrapped(&run.stderr).contains("possible values: auto, always, never"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_configured_inventory_does_not_stop_a_repl_on_a_simulated_host() {
    let lab = lab("inventory = \"labs/one.toml\"\n");
    let mut command = lab.command(&["repl", "--sim", "linux?clock=virtual"]);
    command
        .env("XDG_STATE_HOME", lab.path())
        .env("TERM", "xterm");
    let mut session = rexpect::session::spawn_command(command, Some(10_000))
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    session
        .exp_string("sim-linux> ")
        .unwrap_or_else(|e| panic!("the prompt, not `choose a host`: {e}"));
    session.send_line("40 + 2").unwrap_or_default();
    session
        .exp_string("42")
        .unwrap_or_else(|e| panic!("evaluated: {e}"));
}

#[test]
fn the_files_name_the_lib_folder_the_vault_and_its_key() {
    let lab = lab("inventory = \"labs/one.toml\"\n");
    let keys = crate::vault::Keys::new(&lab);
    keys.create(&lab, &crate::vault::secrets_text());
    lab.write(
        "shared/greet.rhai",
        "fn hello(who) { run([\"echo\", who]); }\n",
    );
    lab.write(
        "secret.rhai",
        "import \"greet\" as greet;\nparam token = secret(\"none\");\n\
         stage \"a\" on all { if token == \"none\" { run([\"false\"]); } greet::hello(token); }\n",
    );
    // The project names the lib folder and the vault; the user's own file names their key.
    lab.write(
        "cairn.toml",
        "[defaults]\ninventory = \"labs/one.toml\"\nlib = \"shared\"\nvault = \"site.vault\"\n",
    );
    lab.write(
        ".config/cairn/config.toml",
        &format!("[defaults]\nvault-identity = \"{}\"\n", keys.identity),
    );
    let run = lab.cairn(&["run", "secret.rhai"]).succeeds();
    run.stdout_lacks(crate::vault::TOKEN);
    let shown = lab.cairn(&["config"]);
    for key in ["lib", "vault", "vault-identity"] {
        let line = shown
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_default();
        assert!(
            line.contains("config.toml:") || line.contains("cairn.toml:"),
            "{key}: {}",
            shown.stdout
        );
    }
    // A key typed on the command line replaces the file's, rather than conflicting with it:
    // this one is wrong, so the vault is refused before anything runs.
    lab.write("wrong-pass", "not the key\n");
    let typed = lab
        .cairn(&[
            "run",
            "secret.rhai",
            "--vault-passphrase-file",
            "wrong-pass",
        ])
        .fails(2);
    typed.stderr_lacks("cannot be used with");
    // A lib folder that is not there is refused at its value, not found missing later.
    lab.write(
        "cairn.toml",
        "[defaults]\ninventory = \"labs/one.toml\"\nlib = \"shraed\"\n",
    );
    lab.assert_fails(
        &["run", "book.rhai"],
        2,
        &["is not a folder", "cairn.toml:3:"],
    );
    // Without a vault, the user's key is not a usage error: a runbook without secrets runs.
    lab.write("cairn.toml", "[defaults]\ninventory = \"labs/one.toml\"\n");
    lab.cairn(&["run", "book.rhai"]).succeeds();
}
