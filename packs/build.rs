//! Embeds the shipped recipes (`../runbooks`, a pack with its `cairn-pack.toml`) in the
//! library: a table of `(path, include_bytes!(file))`, so `cargo install` gives a binary that
//! carries them. Cargo reruns this when anything under the folder changes.

use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runbooks");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    walk(&root, "", &mut files);
    files.sort();
    let mut table = String::from(
        "/// The shipped pack's files, by path inside the pack.\npub(crate) const SHIPPED: &[(&str, &[u8])] = &[\n",
    );
    for (relative, path) in &files {
        table.push_str(&format!(
            "    ({relative:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    table.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("shipped.rs");
    if let Err(error) = std::fs::write(&out, table) {
        panic!("cannot write {}: {error}", out.display());
    }
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("cannot read {}", dir.display());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if path.is_dir() {
            walk(&path, &relative, files);
        } else if path.is_file() {
            let absolute = path.canonicalize().unwrap_or(path);
            files.push((relative, absolute));
        }
    }
}
