//! `--vault` and `--param-file` through the binary: vault secrets reach the runbook and no file
//! or stream; a wrong key, a changed vault or a missing secret runs nothing; the editor's
//! plaintext lives in a private memory folder removed after.

use std::path::Path;

use cairn_tests::{Lab, Run, files, run_book_args};

use crate::executor::inventory;

pub(crate) const TOKEN: &str = "Vt-7hQ2x-token";
const ROOT_PASSWORD: &str = "Esx-R00t-9wq";

const BOOK: &str = r#"
param token = secret("none");
param mtu = 1500;
param retries = 1;
stage "use" on compute {
    if token == "none" { run(["false", "the vault gave no token"]); }
    log(`token is ${token}, mtu ${mtu}, retries ${retries}`);
    run(["echo", token, `${mtu}`]);
    run(["false", "fails with", token]);
}
"#;

/// A vault sealed to a new identity, its secrets written by an editor script; the script and
/// the identity live outside the lab, whose every file is searched for the secrets.
pub(crate) struct Keys {
    outside: tempfile::TempDir,
    pub(crate) identity: String,
}

impl Keys {
    pub(crate) fn new(lab: &Lab) -> Self {
        let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let identity = outside.path().join("id.txt").display().to_string();
        let made = lab.cairn(&["vault", "keygen", &identity]).succeeds();
        made.stderr_has("public key: age1");
        Self { outside, identity }
    }

    /// An editor that replaces the file with `text` and notes where the file was and its mode.
    fn editor(&self, text: &str) -> String {
        let content = self.outside.path().join("content.toml");
        std::fs::write(&content, text).unwrap_or_else(|e| panic!("{e}"));
        let note = self.outside.path().join("note");
        let script = self.outside.path().join("editor.sh");
        let body = format!(
            "#!/bin/sh\nstat -c '%a %n' \"$1\" \"$(dirname \"$1\")\" >> {note}\ncat {content} > \"$1\"\n",
            note = note.display(),
            content = content.display()
        );
        std::fs::write(&script, body).unwrap_or_else(|e| panic!("{e}"));
        let made_executable = std::process::Command::new("chmod")
            .arg("+x")
            .arg(&script)
            .status();
        assert!(made_executable.is_ok_and(|s| s.success()));
        script.display().to_string()
    }

    fn note(&self) -> String {
        std::fs::read_to_string(self.outside.path().join("note")).unwrap_or_default()
    }

    pub(crate) fn create(&self, lab: &Lab, text: &str) {
        self.with_editor(lab, "create", text).succeeds();
    }

    /// `cairn vault VERB site.vault` with an editor that writes `text`.
    fn with_editor(&self, lab: &Lab, verb: &str, text: &str) -> Run {
        let editor = self.editor(text);
        lab.call(&[
            "vault",
            verb,
            "site.vault",
            "--vault-identity",
            &self.identity,
        ])
        .env("EDITOR", &editor)
        .env("VISUAL", "")
        .run()
    }
}

pub(crate) fn secrets_text() -> String {
    format!("token = \"{TOKEN}\"\nesx-root = \"{ROOT_PASSWORD}\"\n")
}

#[test]
fn vault_secrets_reach_the_runbook_and_no_file_or_stream() {
    let lab = Lab::new();
    let keys = Keys::new(&lab);
    keys.create(&lab, &secrets_text());
    lab.write("book.rhai", BOOK);
    lab.write(
        "lab.toml",
        &format!(
            "{}vars = {{ password_vault = \"esx-root\" }}\n",
            inventory("node[01-02]", "clock=virtual")
        ),
    );
    lab.write("params.toml", "mtu = 9000\nretries = 2\n");
    let mut streams = Vec::new();
    for json in [false, true] {
        let mut args = vec![
            "run",
            "book.rhai",
            "-i",
            "lab.toml",
            "--vault",
            "site.vault",
            "--vault-identity",
            &keys.identity,
            "--param-file",
            "params.toml",
            "--param",
            "retries=3",
            "-vv",
        ];
        if json {
            args.push("--json");
            args.retain(|a| *a != "-vv");
        }
        let run = lab.cairn(&args);
        assert_eq!(
            run.code, 1,
            "the last command fails: {}\n{}",
            run.stdout, run.stderr
        );
        run.stderr_has("<redacted>");
        streams.push(run.stdout);
        streams.push(run.stderr);
    }
    // The token came from the vault (the default would have failed first), mtu from the file,
    // retries from --param over the file.
    let echoed = lab.sim_commands("node01");
    assert!(
        echoed.contains(&vec!["echo".into(), "<redacted>".into(), "9000".into()]),
        "{echoed:?}"
    );
    let journal = lab.journal("node01");
    let logged = journal.iter().any(|r| {
        r.to_string()
            .contains("token is <redacted>, mtu 9000, retries 3")
    });
    assert!(logged, "{journal:?}");
    // A resume takes the secret from the vault again: nothing to give by hand.
    let id = lab.runs().pop().unwrap_or_default();
    let resumed = lab
        .cairn(&[
            "resume",
            &id,
            "--vault",
            "site.vault",
            "--vault-identity",
            &keys.identity,
        ])
        .fails(1);
    resumed.stderr_lacks("give it again");
    streams.push(resumed.stdout);
    streams.push(resumed.stderr);
    for text in &streams {
        assert!(
            !text.contains(TOKEN) && !text.contains(ROOT_PASSWORD),
            "{text}"
        );
    }
    let all = files(lab.path());
    assert!(all.len() >= 10, "{all:?}");
    for file in &all {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned();
        assert!(
            !text.contains(TOKEN) && !text.contains(ROOT_PASSWORD),
            "{} holds a secret",
            file.display()
        );
    }
}

#[test]
fn a_wrong_key_a_changed_vault_or_a_missing_secret_runs_nothing() {
    let lab = Lab::new();
    let keys = Keys::new(&lab);
    keys.create(&lab, &secrets_text());
    lab.write("book.rhai", BOOK);
    lab.write("lab.toml", &inventory("node01", "clock=virtual"));
    let other = keys.outside.path().join("other.txt").display().to_string();
    lab.cairn(&["vault", "keygen", &other]).succeeds();
    let run = |vault: &str, key: &str, inventory: &str| {
        lab.cairn(&[
            "run",
            "book.rhai",
            "-i",
            inventory,
            "--vault",
            vault,
            "--vault-identity",
            key,
        ])
    };
    let wrong = run("site.vault", &other, "lab.toml").fails(2);
    wrong.stderr_has("vault::wrong_key");

    let mut sealed = std::fs::read(lab.path().join("site.vault")).unwrap_or_default();
    // A character of the armored payload changed (the last line before the end marker).
    let body = sealed.len() - "\n-----END AGE ENCRYPTED FILE-----\n".len() - 3;
    sealed[body] = if sealed[body] == b'A' { b'B' } else { b'A' };
    std::fs::write(lab.path().join("changed.vault"), &sealed).unwrap_or_else(|e| panic!("{e}"));
    let changed = run("changed.vault", &keys.identity, "lab.toml").fails(2);
    changed.stderr_has("vault::damaged");

    lab.write(
        "typo.toml",
        &format!(
            "{}vars = {{ password_vault = \"esx-rot\" }}\n",
            inventory("node01", "clock=virtual")
        ),
    );
    let missing = run("site.vault", &keys.identity, "typo.toml").fails(2);
    let flat = missing
        .stderr
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("did you mean `esx-root`?"), "{flat}");
    assert!(
        lab.runs().is_empty(),
        "no run was created: {:?}",
        lab.runs()
    );
    assert!(
        lab.sim_commands("node01").is_empty(),
        "no command reached the host"
    );
}

#[test]
fn a_param_file_name_the_runbook_lacks_is_refused_in_the_file() {
    let lab = Lab::with_book(BOOK, &inventory("node01", "clock=virtual"));
    let with_file = run_book_args(&["--param-file", "params.toml"]);
    lab.write("params.toml", "retries = 2\nmut = 9000\n");
    lab.assert_fails(&with_file, 2, &["did you mean `mtu`?", "params.toml:2:1"]);
    lab.write("params.toml", "retries = \"two\"\n");
    lab.assert_fails(&with_file, 2, &["takes an integer", "params.toml:1:11"]);
    assert!(lab.runs().is_empty(), "{:?}", lab.runs());
}

#[test]
fn an_edit_happens_in_a_private_memory_folder_removed_after() {
    let lab = Lab::new();
    let keys = Keys::new(&lab);
    keys.create(&lab, &secrets_text());
    let edited = keys
        .with_editor(
            &lab,
            "edit",
            &format!("{}bmc = \"added\"\n", secrets_text()),
        )
        .succeeds();
    edited.stderr_has("3 secrets");
    let note = keys.note();
    let lines: Vec<&str> = note.lines().collect();
    assert_eq!(
        lines.len(),
        4,
        "two edits, the file and its folder each: {note}"
    );
    for pair in lines.chunks(2) {
        let (file, folder) = (pair[0], pair[1]);
        assert!(file.starts_with("600 "), "{file}");
        assert!(folder.starts_with("700 "), "{folder}");
        let path = file.trim_start_matches("600 ");
        assert!(!Path::new(path).exists(), "{path} was removed");
        let folder = folder.trim_start_matches("700 ");
        assert!(!Path::new(folder).exists(), "{folder} was removed");
    }
    let view = [
        "vault",
        "view",
        "site.vault",
        "--vault-identity",
        &keys.identity,
    ];
    let viewed = lab.cairn(&view).succeeds();
    viewed.stdout_has("bmc = \"added\"");
    // Not TOML strings: refused where it is wrong, without quoting the text, vault unchanged.
    let refused = keys.with_editor(&lab, "edit", "pin = 12345678\n").fails(2);
    let flat = refused
        .stderr
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("`pin` is an integer, not a string (line 1, column 7)"),
        "{flat}"
    );
    refused.stderr_lacks("12345678");
    let again = lab.cairn(&view);
    again.stdout_has("bmc = \"added\"");
}
