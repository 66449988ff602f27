//! Packs that travel (issue 27, items 3 and 4): `cairn recipes pack` writes a deterministic
//! archive, `cairn recipes install` verifies it offline (files against `FILES`, a minisign
//! signature made by Debian's `minisign` naming the pack and version), checks its recipes
//! against this cairn and stores it beside its other versions; `verify` re-hashes; `lock` pins.

use std::path::Path;
use std::process::Command;

use cairn_tests::{Lab, Run};

/// `cairn ARGS` with the lab's own cairn home (packs and keys folder); its stderr with
/// miette's line wrapping undone, so a message reads as one line.
pub(crate) fn cairn(lab: &Lab, args: &[&str]) -> Run {
    let home = lab.path().join("home").display().to_string();
    let mut run = lab.cairn_with(args, &[("CAIRN_HOME", &home)]);
    run.stderr = run
        .stderr
        .split_whitespace()
        .filter(|word| *word != "│")
        .collect::<Vec<_>>()
        .join(" ");
    run
}

/// A pack `name` at `version` in the lab's folder `dir`: one recipe `hello` (logging `said`)
/// importing `lib/greet`.
pub(crate) fn write_pack(lab: &Lab, dir: &str, name: &str, version: &str, said: &str) {
    lab.write(
        &format!("{dir}/cairn-pack.toml"),
        &format!(
            "name = \"{name}\"\nversion = \"{version}\"\ncairn = \">=0.1.0\"\nsummary = \"greets\"\nlicense = \"MIT\"\n\n[recipes.hello]\nfile = \"hello.rhai\"\nlab = \"labs/two.toml\"\n"
        ),
    );
    lab.write(
        &format!("{dir}/hello.rhai"),
        "// Says hello on every host.\nimport \"greet\" as greet;\n\nstage \"hello\" on all {\n    log(greet::text());\n}\n",
    );
    lab.write(
        &format!("{dir}/lib/greet.rhai"),
        &format!("fn text() {{ \"{said}\" }}\n"),
    );
    lab.write(
        &format!("{dir}/labs/two.toml"),
        "[hosts.\"node[1-2]\"]\naddress = \"sim:linux\"\n",
    );
}

/// The pack `acme/infra` at `version` (see [`write_pack`]) in the lab's folder `v{version}`,
/// which it returns.
pub(crate) fn infra_pack(lab: &Lab, version: &str, said: &str) -> String {
    let dir = format!("v{version}");
    write_pack(lab, &dir, "acme/infra", version, said);
    dir
}

/// Runs Debian's `minisign` in the lab.
fn minisign(lab: &Lab, args: &[&str]) {
    let done = Command::new("minisign")
        .args(args)
        .current_dir(lab.path())
        .output()
        .unwrap_or_else(|e| panic!("minisign: {e}"));
    assert!(done.status.success(), "minisign {args:?}: {done:?}");
}

/// A key pair `NAME.pub`/`NAME.key` with no password (`minisign -G -W`).
fn keypair(lab: &Lab, name: &str) {
    minisign(
        lab,
        &[
            "-G",
            "-W",
            "-p",
            &format!("{name}.pub"),
            "-s",
            &format!("{name}.key"),
        ],
    );
}

/// Signs `DIR/FILES` with `KEY.key` and the trusted comment `comment`.
fn sign(lab: &Lab, dir: &str, key: &str, comment: &str) {
    minisign(
        lab,
        &[
            "-S",
            "-s",
            &format!("{key}.key"),
            "-m",
            &format!("{dir}/FILES"),
            "-t",
            comment,
        ],
    );
}

fn trust(lab: &Lab, key: &str) {
    let text = std::fs::read_to_string(lab.path().join(format!("{key}.pub")))
        .unwrap_or_else(|e| panic!("{e}"));
    lab.write(&format!("home/keys/{key}.pub"), &text);
}

/// Packs `dir`, signs its FILES with `key` for `name version`, and packs again.
fn signed_pack(lab: &Lab, dir: &str, key: &str, name: &str, version: &str, out: &str) {
    cairn(lab, &["recipes", "pack", dir, "-o", out]).succeeds();
    sign(lab, dir, key, &format!("cairn-pack {name} {version}"));
    let second = cairn(lab, &["recipes", "pack", dir, "-o", out]).succeeds();
    second.stdout_has("signed)");
}

fn read(lab: &Lab, path: &str) -> Vec<u8> {
    std::fs::read(lab.path().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn a_signed_pack_installs_runs_by_name_and_verifies_and_the_archive_is_deterministic() {
    let lab = Lab::new();
    write_pack(&lab, "src", "acme/infra", "1.0.0", "hello from acme");
    keypair(&lab, "vendor");
    signed_pack(&lab, "src", "vendor", "acme/infra", "1.0.0", "a.cairnpack");
    let again = cairn(&lab, &["recipes", "pack", "src", "-o", "b.cairnpack"]).succeeds();
    assert_eq!(read(&lab, "a.cairnpack"), read(&lab, "b.cairnpack"));
    // The content id is Go's h1: of FILES, computed here by coreutils and base64.
    let files = read(&lab, "src/FILES");
    let h1 = Command::new("sh")
        .args([
            "-c",
            "sha256sum < src/FILES | cut -c1-64 | xxd -r -p | base64",
        ])
        .current_dir(lab.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let h1 = format!("h1:{}", String::from_utf8_lossy(&h1.stdout).trim());
    assert!(again.stdout.contains(&h1), "{h1}: {}", again.stdout);
    assert!(String::from_utf8_lossy(&files).contains("  lib/greet.rhai\n"));

    let untrusted = cairn(&lab, &["recipes", "install", "a.cairnpack"]).fails(2);
    untrusted.stderr_has("which is not trusted");
    trust(&lab, "vendor");
    let installed = cairn(&lab, &["recipes", "install", "a.cairnpack"]).succeeds();
    installed.stdout_has(&h1);
    installed.stdout_has("signed by key");

    let list = cairn(&lab, &["recipes", "list"]);
    list.stdout_has("acme/infra 1.0.0 (installed in");
    let run = cairn(&lab, &["run", "hello", "-i", "src/labs/two.toml"]).succeeds();
    run.stdout_has("hello from acme");
    let verify = cairn(&lab, &["recipes", "verify"]).succeeds();
    verify.stdout_has(&format!("ok acme/infra 1.0.0 {h1} signed by"));
}

/// Rewrites a file of the installed copy (read-only, as installs leave them).
fn tamper(lab: &Lab, path: &str, from: &str, to: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    let file = lab.path().join("home/packs/acme/infra/1.0.0").join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains(from), "{path}: {text}");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&file, text.replace(from, to)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_installed_pack_changed_after_its_install_is_refused_before_a_run_lock_or_not() {
    let lab = Lab::new();
    write_pack(&lab, "src", "acme/infra", "1.0.0", "hello from acme");
    keypair(&lab, "vendor");
    signed_pack(&lab, "src", "vendor", "acme/infra", "1.0.0", "a.cairnpack");
    trust(&lab, "vendor");
    cairn(&lab, &["recipes", "install", "a.cairnpack"]).succeeds();
    tamper(
        &lab,
        "lib/greet.rhai",
        "hello from acme",
        "rm -rf from acme",
    );
    let runs = lab.runs().len();
    let refused = cairn(&lab, &["run", "hello", "-i", "src/labs/two.toml"]).fails(2);
    refused.stderr_has("`lib/greet.rhai` has changed");
    refused.stderr_lacks("rm -rf from acme");
    assert_eq!(lab.runs().len(), runs, "nothing ran");
    // Nor does `show` name the vendor as the signer of the edited content.
    let shown = cairn(&lab, &["recipes", "show", "hello"]).fails(2);
    shown.stderr_has("`lib/greet.rhai` has changed");
    // Its FILES rewritten to match: the signature no longer holds.
    let hash = Command::new("sh")
        .args([
            "-c",
            "sha256sum home/packs/acme/infra/1.0.0/lib/greet.rhai | cut -c1-64",
        ])
        .current_dir(lab.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let hash = String::from_utf8_lossy(&hash.stdout).trim().to_owned();
    let files = std::fs::read_to_string(lab.path().join("home/packs/acme/infra/1.0.0/FILES"))
        .unwrap_or_else(|e| panic!("{e}"));
    let listed = files
        .lines()
        .find(|line| line.ends_with("  lib/greet.rhai"))
        .and_then(|line| line.split_whitespace().next())
        .unwrap_or_else(|| panic!("{files}"))
        .to_owned();
    tamper(&lab, "FILES", &listed, &hash);
    let refused = cairn(&lab, &["run", "hello", "-i", "src/labs/two.toml"]).fails(2);
    refused.stderr_has("than when it was installed");
    assert_eq!(lab.runs().len(), runs, "nothing ran");
}

#[test]
fn an_unsigned_pack_is_refused_unless_allowed_and_one_changed_byte_is_refused_by_name() {
    let lab = Lab::new();
    write_pack(&lab, "src", "acme/infra", "1.0.0", "hello");
    cairn(&lab, &["recipes", "pack", "src", "-o", "a.cairnpack"]).succeeds();
    let refused = cairn(&lab, &["recipes", "install", "a.cairnpack"]).fails(2);
    refused.stderr_has("the pack is not signed");
    refused.stderr_has("--allow-unsigned");

    // One byte of a recipe changed after FILES was written: the folder is refused by name.
    lab.write("src/lib/greet.rhai", "fn text() { \"hellO\" }\n");
    let tampered = cairn(&lab, &["recipes", "install", "src", "--allow-unsigned"]).fails(2);
    tampered.stderr_has("`lib/greet.rhai` has changed");

    let allowed = cairn(
        &lab,
        &["recipes", "install", "a.cairnpack", "--allow-unsigned"],
    )
    .succeeds();
    allowed.stdout_has("unsigned");
    // A changed byte in the installed copy: `verify` names the file and fails.
    let installed = lab.path().join("home/packs/acme/infra/1.0.0/hello.rhai");
    let mut bytes = std::fs::read(&installed).unwrap_or_else(|e| panic!("{e}"));
    bytes[3] ^= 1;
    let mut permissions = std::fs::metadata(&installed)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions();
    assert!(permissions.readonly(), "an installed file is writable");
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&installed, permissions).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&installed, bytes).unwrap_or_else(|e| panic!("{e}"));
    let verify = cairn(&lab, &["recipes", "verify"]).fails(2);
    verify.stderr_has("`hello.rhai` has changed");
}

#[test]
fn a_signature_moved_to_another_pack_or_made_for_another_version_is_refused() {
    let lab = Lab::new();
    keypair(&lab, "vendor");
    trust(&lab, "vendor");
    // Signed with the right key, but its trusted comment names another version.
    write_pack(&lab, "one", "acme/infra", "1.0.1", "hello");
    cairn(&lab, &["recipes", "pack", "one", "-o", "one.cairnpack"]).succeeds();
    sign(&lab, "one", "vendor", "cairn-pack acme/infra 1.0.0");
    let packed = cairn(&lab, &["recipes", "pack", "one", "-o", "one.cairnpack"]).fails(2);
    packed.stderr_has("made for another pack or version");
    let installed = cairn(&lab, &["recipes", "install", "one", "--allow-unsigned"]).fails(2);
    installed.stderr_has("not `cairn-pack acme/infra 1.0.1`");

    // A good signature of one pack copied beside another pack's FILES.
    write_pack(&lab, "two", "acme/other", "1.0.0", "other");
    signed_pack(
        &lab,
        "two",
        "vendor",
        "acme/other",
        "1.0.0",
        "two.cairnpack",
    );
    write_pack(&lab, "three", "acme/third", "1.0.0", "third");
    cairn(&lab, &["recipes", "pack", "three", "-o", "three.cairnpack"]).succeeds();
    std::fs::copy(
        lab.path().join("two/FILES.minisig"),
        lab.path().join("three/FILES.minisig"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let moved = cairn(&lab, &["recipes", "install", "three"]).fails(2);
    moved.stderr_has("FILES is not what was signed");
    assert!(!lab.path().join("home/packs/acme/third").exists());
}

#[test]
fn a_pack_needing_a_newer_cairn_or_a_builtin_this_cairn_lacks_is_refused_at_its_span() {
    let lab = Lab::new();
    write_pack(&lab, "new", "acme/infra", "2.0.0", "hello");
    let manifest =
        String::from_utf8_lossy(&read(&lab, "new/cairn-pack.toml")).replace(">=0.1.0", ">=9.0.0");
    lab.write("new/cairn-pack.toml", &manifest);
    cairn(&lab, &["recipes", "pack", "new", "-o", "new.cairnpack"]).succeeds();
    let refused = cairn(
        &lab,
        &["recipes", "install", "new.cairnpack", "--allow-unsigned"],
    )
    .fails(2);
    refused.stderr_has("needs cairn >=9.0.0");
    refused.stderr_has("cairn-pack.toml:3:");

    write_pack(&lab, "odd", "acme/odd", "1.0.0", "hello");
    lab.write(
        "odd/hello.rhai",
        "// Calls what this cairn does not have.\nstage \"hello\" on all {\n    frobnicate_the_fabric(\"now\");\n}\n",
    );
    cairn(&lab, &["recipes", "pack", "odd", "-o", "odd.cairnpack"]).succeeds();
    let refused = cairn(
        &lab,
        &["recipes", "install", "odd.cairnpack", "--allow-unsigned"],
    )
    .fails(2);
    refused.stderr_has("frobnicate_the_fabric");
    refused.stderr_has("hello.rhai:3:");
    refused.stderr_has("checked against this cairn");
    assert!(!lab.path().join("home/packs/acme/odd").exists());
}

#[test]
fn two_packs_with_one_recipe_name_are_refused_listing_both_until_named_with_their_pack() {
    let lab = Lab::new();
    for (dir, name) in [("a", "acme/a"), ("b", "acme/b")] {
        write_pack(&lab, dir, name, "1.0.0", &format!("hello from {name}"));
        cairn(
            &lab,
            &["recipes", "pack", dir, "-o", &format!("{dir}.cairnpack")],
        )
        .succeeds();
        cairn(
            &lab,
            &[
                "recipes",
                "install",
                &format!("{dir}.cairnpack"),
                "--allow-unsigned",
            ],
        )
        .succeeds();
    }
    let both = cairn(&lab, &["run", "hello", "-i", "a/labs/two.toml"]).fails(2);
    both.stderr_has("acme/a:hello 1.0.0 (installed in");
    both.stderr_has("acme/b:hello 1.0.0 (installed in");
    assert!(lab.runs().is_empty(), "a run started");
    let one = cairn(&lab, &["run", "acme/b:hello", "-i", "a/labs/two.toml"]).succeeds();
    one.stdout_has("hello from acme/b");
}

#[test]
fn versions_live_side_by_side_and_cairn_lock_pins_the_one_a_run_uses() {
    let lab = Lab::new();
    for version in ["1.0.0", "1.1.0", "2.0.0"] {
        let dir = infra_pack(&lab, version, &format!("hello {version}"));
        let out = format!("{dir}.cairnpack");
        assert_eq!(cairn(&lab, &["recipes", "pack", &dir, "-o", &out]).code, 0);
        cairn(&lab, &["recipes", "install", &out, "--allow-unsigned"]).succeeds();
    }
    let inventory = "v1.0.0/labs/two.toml";
    let newest = cairn(&lab, &["run", "hello", "-i", inventory]);
    newest.stdout_has("hello 2.0.0");

    lab.write("cairn.toml", "[packs.require]\n\"acme/infra\" = \"^1.0\"\n");
    let ranged = cairn(&lab, &["run", "hello", "-i", inventory]);
    ranged.stdout_has("hello 1.1.0");
    cairn(&lab, &["recipes", "lock"]).succeeds();
    let lock = String::from_utf8_lossy(&read(&lab, "cairn.lock")).into_owned();
    for field in [
        "name = \"acme/infra\"",
        "version = \"1.1.0\"",
        "content_id = \"h1:",
        "signer = \"unsigned\"",
        "source = \"",
    ] {
        assert!(lock.contains(field), "{field}: {lock}");
    }
    // The lock wins over a range that would now pick another version.
    lab.write("cairn.toml", "[packs.require]\n\"acme/infra\" = \"^1.0\"\n");
    let lock_path = lab.path().join("cairn.lock");
    let pinned = lock.replace("1.1.0", "1.0.0");
    // The 1.0.0 content id differs: the pinned id must be the installed copy's.
    let mismatch = cairn_with_lock(&lab, &lock_path, &pinned).fails(2);
    mismatch.stderr_has("cairn.lock pins acme/infra 1.0.0 with content id");

    // A pack named like the built-in one is refused: its recipes could not be told apart.
    write_pack(&lab, "own", "cairn/connectx", "9.0.0", "mine");
    assert_eq!(
        cairn(&lab, &["recipes", "pack", "own", "-o", "own.cairnpack"]).code,
        0
    );
    let builtin = cairn(
        &lab,
        &["recipes", "install", "own.cairnpack", "--allow-unsigned"],
    )
    .fails(2);
    builtin.stderr_has("the name of a pack built into cairn");

    let typo = "[packs]\ntrusted_key = []\n";
    lab.write("cairn.toml", typo);
    let refused = cairn(&lab, &["recipes", "list"]).fails(2);
    refused.stderr_has("unknown field `trusted_key`");
}

fn cairn_with_lock(lab: &Lab, lock_path: &Path, text: &str) -> Run {
    std::fs::write(lock_path, text).unwrap_or_else(|e| panic!("{e}"));
    cairn(lab, &["run", "hello", "-i", "v1.0.0/labs/two.toml"])
}
