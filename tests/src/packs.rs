//! Packs and imports: a module's imports resolve beside the module, then in the pack's `lib/`,
//! then along `--lib`/CAIRN_PATH, and `cairn check` follows them as the run does.

use cairn_tests::Lab;

const SITE_RUNBOOK: &str = r#"// A site's runbook in its own folder, using the shipped guest module.
import "../runbooks/lib/guest" as guest;

stage "ports" on guests {
    log(`ports known: ${guest::ports_known()}`);
}
"#;

#[test]
fn a_site_runbook_importing_the_shipped_guest_module_checks_and_runs() {
    let lab = Lab::shipped();
    lab.write("site/site.rhai", SITE_RUNBOOK);
    lab.cairn(&["check", "site/site.rhai"]).succeeds();
    // guest.rhai's own `import "report"` resolves beside guest.rhai, not beside site.rhai.
    let run = lab
        .cairn(&[
            "run",
            "site/site.rhai",
            "-i",
            "runbooks/labs/guests-2node.toml",
        ])
        .succeeds();
    assert!(
        !run.output().contains("Module not found"),
        "{}",
        run.output()
    );
    run.stdout_has("ports known: true");
}

#[test]
fn lib_and_cairn_path_are_searched_after_the_runbook_s_folder() {
    let lab = Lab::shipped();
    let by_name = SITE_RUNBOOK.replace("../runbooks/lib/guest", "guest");
    lab.write("site/site.rhai", &by_name);
    lab.assert_fails(
        &["check", "site/site.rhai"],
        2,
        &["no module `guest`", "--lib DIR"],
    );
    lab.cairn(&["check", "site/site.rhai", "--lib", "runbooks/lib"])
        .succeeds();
    let inventory = "runbooks/labs/guests-2node.toml";
    lab.cairn_with(
        &["run", "site/site.rhai", "-i", inventory],
        &[("CAIRN_PATH", "/nonexistent:runbooks/lib")],
    )
    .succeeds();
}

#[test]
fn check_refuses_a_missing_import_inside_an_imported_module_at_its_line() {
    let lab = Lab::new();
    lab.write(
        "shared/tools.rhai",
        "// tools\nimport \"absent\" as absent;\nfn hi() { 1 }\n",
    );
    lab.write(
        "site.rhai",
        "import \"shared/tools\" as tools;\nlet x = tools::hi();\n",
    );
    lab.assert_fails(
        &["check", "site.rhai"],
        2,
        &["no module `absent`", "shared/tools.rhai:2:8"],
    );
}

/// `cairn recipes list`, `cairn recipes lab NAME > lab.toml` and `cairn run NAME -i lab.toml`
/// from a copy of the binary in a temporary install prefix, in a mount namespace where the
/// source tree is an empty folder: the recipes come from the binary alone.
#[test]
fn the_built_in_recipes_run_from_an_install_prefix_with_the_source_tree_out_of_reach() {
    let prefix = Lab::new();
    let bin = prefix.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(cairn_tests::binary("cairn"), bin.join("cairn"))
        .unwrap_or_else(|e| panic!("copy the binary: {e}"));
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let source = source.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let script = format!(
        "set -e; mount -t tmpfs tmpfs '{src}'; test ! -e '{src}/runbooks'; \
         cairn recipes list; cairn recipes lab vma-latency > lab.toml; \
         cairn run vma-latency -i lab.toml",
        src = source.display()
    );
    let work = Lab::new();
    let finished = std::process::Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .current_dir(work.path())
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env_remove("CAIRN_STATE_DIR")
        .env_remove("CAIRN_PATH")
        .output()
        .unwrap_or_else(|e| panic!("unshare: {e}"));
    let run = cairn_tests::Run::from(finished).succeeds();
    run.stdout_has("cairn/connectx 0.1.0 (built in) h1:");
    run.stdout_has("vma-latency");
    let lab = std::fs::read_to_string(work.path().join("lab.toml")).unwrap_or_default();
    assert!(lab.contains("[hosts"), "{lab}");
    run.stdout_has("faster than the kernel's stack");
}
