//! The completion scripts and man pages in docs/ are what the binary generates now: a change to
//! the command line that forgets to regenerate them fails here, with the command that does.

use std::path::Path;

use cairn_tests::Lab;

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

#[test]
fn the_completion_scripts_in_docs_are_current() {
    let lab = Lab::new();
    for (shell, file) in [
        ("bash", "cairn.bash"),
        ("zsh", "_cairn"),
        ("fish", "cairn.fish"),
    ] {
        let made = lab.cairn(&["completions", shell]).succeeds();
        // Each names the subcommands.
        assert!(made.stdout.contains("resume"), "{shell}: {}", made.stdout);
        let path = repo(&format!("docs/completions/{file}"));
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == made.stdout,
            "{} is stale: run `cairn completions {shell} > docs/completions/{file}`",
            path.display()
        );
    }
    lab.assert_fails(&["completions", "tcsh"], 2, &["possible values"]);
}

#[test]
fn the_man_pages_in_docs_are_current_one_per_subcommand() {
    let lab = Lab::new();
    lab.cairn(&["man", "pages"]).succeeds();
    let mut names: Vec<String> = std::fs::read_dir(lab.path().join("pages"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    for page in ["cairn.1", "cairn-run.1", "cairn-resume.1", "cairn-config.1"] {
        assert!(names.iter().any(|n| n == page), "{page} in {names:?}");
    }
    let mut kept: Vec<String> = std::fs::read_dir(repo("docs/man"))
        .unwrap_or_else(|e| panic!("docs/man: {e}"))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    kept.sort();
    assert_eq!(kept, names, "docs/man is stale: run `cairn man docs/man`");
    for name in &names {
        let new = std::fs::read_to_string(lab.path().join("pages").join(name)).unwrap_or_default();
        let old = std::fs::read_to_string(repo("docs/man").join(name)).unwrap_or_default();
        assert!(
            new == old,
            "docs/man/{name} is stale: run `cairn man docs/man`"
        );
    }
    let run = std::fs::read_to_string(lab.path().join("pages/cairn-run.1")).unwrap_or_default();
    assert!(run.contains("max\\-unavailable"), "{run}");
}
