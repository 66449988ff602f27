//! The fixture texts under a folder, which the parser fuzz and no-panic tests start from.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

/// The shared corpus of published outputs (`../shared/fixtures`, or `CAIRN_SHARED_FIXTURES`), as
/// stdlib/build.rs found it; the tests that read it are ignored where it is absent.
pub fn shared_corpus() -> PathBuf {
    PathBuf::from(env!("CAIRN_SHARED_FIXTURES_DIR"))
}

/// Every `.txt` under `dir` (none when it is missing), whole.
pub fn texts_under(dir: &Path) -> Vec<String> {
    let mut texts = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "txt")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                texts.push(text);
            }
        }
    }
    texts
}

/// A fixture's output: its `$ command` line dropped when it has one.
pub fn output_of(text: String) -> String {
    match text.strip_prefix("$ ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, t)| t).to_owned(),
        None => text,
    }
}
