//! Secret params' values through the binary: one without a value is refused before anything
//! runs (with the vault's nearest name), one too short to redact is refused naming the param,
//! the resume of a run that took secrets from a vault asks for that vault, a resume replays
//! what the runbook read where a secret occurred in it, and params are checked with their real
//! values, never shown half redacted.

use cairn_tests::{Lab, Run, files};

use crate::executor::inventory;
use crate::vault::Keys;

/// Stderr on one line: miette wraps long messages, with a gutter.
fn flat(run: &Run) -> String {
    run.stderr
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A lab with `book` on a simulated `node01` and a vault holding `secrets`.
fn lab_with_vault(book: &str, secrets: &str) -> (Lab, Keys) {
    let lab = Lab::with_book(book, &inventory("node01", "clock=virtual"));
    let keys = Keys::new(&lab);
    keys.create(&lab, secrets);
    (lab, keys)
}

fn with_vault<'a>(keys: &'a Keys, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["--vault", "site.vault", "--vault-identity", &keys.identity];
    args.extend_from_slice(extra);
    args
}

#[track_caller]
fn nothing_ran(lab: &Lab) {
    assert!(lab.runs().is_empty(), "a run was created: {:?}", lab.runs());
    assert!(lab.sim_commands("node01").is_empty(), "a command ran");
}

const TYPO: &str = r#"
param bmc_pasword = secret("");
stage "login" on compute { run(["echo", "logging in"]); }
"#;

#[test]
fn a_secret_param_without_a_value_is_refused_before_anything_runs() {
    let (lab, keys) = lab_with_vault(TYPO, "bmc_password = \"Bmc-pw-5512\"\n");
    let from_vault = lab.run_book(&with_vault(&keys, &[])).fails(2);
    let said = flat(&from_vault);
    assert!(
        said.contains("secret param `bmc_pasword` has no value")
            && said.contains("did you mean `bmc_password`?"),
        "{said}"
    );
    let without = lab.run_book(&[]).fails(2);
    let said = flat(&without);
    assert!(
        said.contains("secret param `bmc_pasword` has no value") && said.contains("--vault FILE"),
        "{said}"
    );
    nothing_ran(&lab);
    lab.run_book(&["--param", "bmc_pasword=Given-pw-77"])
        .succeeds();
}

const PIN: &str = r#"
param pin = secret("");
stage "s" on compute { run(["echo", pin]); }
"#;

#[test]
fn a_secret_too_short_to_redact_is_refused_naming_the_param() {
    let (lab, keys) = lab_with_vault(PIN, "pin = \"1\"\n");
    let from_vault = lab.run_book(&with_vault(&keys, &[])).fails(2);
    let said = flat(&from_vault);
    assert!(
        said.contains("secret param `pin` is refused") && said.contains("1 character(s) long"),
        "{said}"
    );
    let given = lab.run_book(&["--param", "pin=ab7"]).fails(2);
    let said = flat(&given);
    assert!(
        said.contains("secret param `pin` is refused") && said.contains("3 character(s) long"),
        "{said}"
    );
    given.stderr_lacks("ab7");
    lab.write("book.rhai", &PIN.replace("secret(\"\")", "secret(\"x1\")"));
    let default = lab.run_book(&[]).fails(2);
    let said = flat(&default);
    assert!(
        said.contains("secret param `pin`'s default is refused"),
        "{said}"
    );
    nothing_ran(&lab);
}

const FAILS: &str = r#"
param token = secret("");
stage "s" on compute { run(["echo", token]); run(["false"]); }
"#;

#[test]
fn the_resume_of_a_vault_run_asks_for_the_vault_not_for_the_value() {
    let (lab, keys) = lab_with_vault(FAILS, "token = \"Tk-51-vault\"\n");
    lab.run_book(&with_vault(&keys, &[])).fails(1);
    let vault = lab.path().join("site.vault").display().to_string();
    let id = lab.runs().pop().unwrap_or_default();
    let meta = std::fs::read_to_string(lab.path().join(".cairn/runs").join(&id).join("run.json"))
        .unwrap_or_default();
    assert!(
        meta.contains(&vault) && meta.contains("param:token") && !meta.contains("Tk-51-vault"),
        "{meta}"
    );
    let resumed = lab.cairn(&["resume", &id]).fails(2);
    // Without spaces: miette may wrap the path after a `/`.
    let said = flat(&resumed).replace(' ', "");
    assert!(
        said.contains(&format!("--vault{vault}")) && said.contains("`param:token`"),
        "{said}"
    );
    resumed.stderr_lacks("--param token");
    let again = lab.cairn(&[&["resume", &id][..], &with_vault(&keys, &[])].concat());
    again.fails(1).stderr_lacks("give it again");
}

/// The repro's runbook with a secret long enough to redact: the value read by the first action
/// holds the secret (the runbook's text does not), and the runbook branches on it after a
/// failure a resume gets past.
const BRANCHES: &str = r#"
param pin = secret("");
stage "s" on all {
    let n = run(["printf", "%s%s\n", "739", "16"]).stdout.trim();
    run(["sh", "-c", "[ -f flag ] || { touch flag; exit 1; }"]);
    run(["sh", "-c", "printf '%s\\n' \"$0\" >> seen.txt", n]);
    if n == "739" + "16" { run(["sh", "-c", "echo branch-SAME >> seen.txt"]); } else { run(["sh", "-c", "echo branch-OTHER >> seen.txt"]); }
}
"#;

#[test]
fn a_resume_replays_what_the_run_read_where_a_secret_occurred() {
    let lab = Lab::with_book(BRANCHES, "[hosts.me]\naddress = \"local\"\n");
    let keys = Keys::new(&lab);
    keys.create(&lab, "pin = \"7391\"\n");
    let live = lab.run_book(&with_vault(&keys, &[])).fails(1);
    let resumed = lab
        .cairn(&[&["resume"][..], &with_vault(&keys, &[])].concat())
        .succeeds();
    let seen = std::fs::read_to_string(lab.path().join("seen.txt")).unwrap_or_default();
    assert_eq!(seen, "73916\nbranch-SAME\n");
    let shown = lab.cairn(&["journal", "me"]).succeeds();
    shown.stdout_has("<redacted>6");
    for text in [
        &live.stdout,
        &live.stderr,
        &resumed.stdout,
        &resumed.stderr,
        &shown.stdout,
    ] {
        assert!(!text.contains("7391"), "a secret shown: {text}");
    }
    for file in files(&lab.path().join(".cairn")) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        assert!(
            !text.contains("7391"),
            "{} holds the secret",
            file.display()
        );
    }
}

const TYPED: &str = r#"
param pin = secret(0);
param port = 8000;
stage "s" on compute {
    run(["echo", `port ${port}`]);
    if pin + 1 == 2469 { run(["echo", "the pin read as a number"]); }
}
"#;

#[test]
fn params_are_checked_with_their_real_values_and_never_shown_half_redacted() {
    let (lab, keys) = lab_with_vault(TYPED, "pin = \"2468\"\n");
    lab.run_book(&with_vault(&keys, &["--param", "port=12468"]))
        .succeeds();
    assert_eq!(
        lab.sim_count("node01", &["echo", "the pin read as a number"]),
        1
    );
    let wrong = lab
        .run_book(&with_vault(&keys, &["--param", "port=x2468"]))
        .fails(2);
    let said = flat(&wrong);
    assert!(
        said.contains("--param port=<redacted>: `port` takes an integer"),
        "{said}"
    );
    wrong.stderr_lacks("x<redacted>").stderr_lacks("2468");
}
