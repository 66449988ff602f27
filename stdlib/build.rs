//! Finds the shared corpus of published tool outputs that some parser tests read in place:
//! `../shared/fixtures` beside the repository, or the folder `CAIRN_SHARED_FIXTURES` names
//! (absolute, or relative to the repository). Its path reaches the tests as
//! `CAIRN_SHARED_FIXTURES_DIR`, and where it exists the `shared_corpus` cfg is set: the tests
//! that need it are `#[ignore]`d without it, so a clone without the corpus counts them as
//! ignored ("skipped: ../shared/fixtures absent"), never as passed (docs/parsers.md, "The shared
//! corpus").

use std::path::{Path, PathBuf};

fn main() {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let repository = Path::new(&manifest).join("..");
    let corpus = match std::env::var_os("CAIRN_SHARED_FIXTURES") {
        Some(dir) => repository.join(dir),
        None => repository.join("../shared/fixtures"),
    };
    println!("cargo::rustc-check-cfg=cfg(shared_corpus)");
    println!("cargo::rerun-if-env-changed=CAIRN_SHARED_FIXTURES");
    println!("cargo::rerun-if-changed=build.rs");
    println!(
        "cargo::rustc-env=CAIRN_SHARED_FIXTURES_DIR={}",
        display(&corpus)
    );
    if corpus.is_dir() {
        println!("cargo::rustc-cfg=shared_corpus");
        // Watched only while it exists (a missing path would rebuild this crate every time):
        // its removal is seen, its arrival needs `touch stdlib/build.rs` (a test says so).
        println!("cargo::rerun-if-changed={}", display(&corpus));
    }
}

/// The path without `..` steps where it exists, for the messages that show it.
fn display(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| PathBuf::from(path))
        .display()
        .to_string()
}
