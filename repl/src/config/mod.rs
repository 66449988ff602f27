//! `cairn.toml`: defaults for the command line's options, from the project's file (found upwards
//! from the working directory, as Cargo finds `Cargo.toml`) and the user's
//! (`$XDG_CONFIG_HOME/cairn/config.toml`, else `~/.config/cairn/config.toml`). The project's
//! file wins over the user's; the command line and the environment win over both.
//!
//! ```toml
//! [defaults]          # one key per command-line option, spelt as the option: `--max-unavailable`
//! inventory = "runbooks/labs/vsphere7-4node.toml"
//! forks = 8
//! max-unavailable = "25%"
//! ```
//!
//! The file is made of sections; each is named in [`SECTIONS`], and every other section or key
//! is refused with a did-you-mean pointing at it. Which option keys `[defaults]` takes is the
//! caller's list (the binary's options), so a new option's default is one name added there.

mod config_error;
mod config_file;

use std::path::{Path, PathBuf};

pub(crate) use config_error::ConfigError;
pub(crate) use config_file::{ConfigFile, Setting};

/// The sections a `cairn.toml` may have: `[defaults]`, the command-line options' defaults, and
/// `[packs]`, trusted keys and pack versions (read by `cairn-packs`, `project.rs`).
pub(crate) const SECTIONS: &[&str] = &["defaults", "packs"];

/// The project file's name, looked for in the working directory and each folder above it.
pub(crate) const PROJECT_FILE: &str = "cairn.toml";

/// The files that apply here, the user's first and the project's last (it wins), each with
/// its settings; a file that does not exist is left out.
#[derive(Debug, Default)]
pub(crate) struct Config {
    /// The files read, in the order they apply.
    pub(crate) files: Vec<ConfigFile>,
}

impl Config {
    /// Reads the user's file and the nearest `cairn.toml` at or above `cwd`, refusing unknown
    /// sections and `[defaults]` keys not in `keys`.
    pub(crate) fn load(cwd: &Path, keys: &[&str]) -> Result<Self, ConfigError> {
        let paths = user_file().into_iter().chain(project_file(cwd));
        let mut files = Vec::new();
        for path in paths {
            if path.is_file() {
                files.push(ConfigFile::read(&path, keys)?);
            }
        }
        Ok(Self { files })
    }

    /// The setting that applies for `key`, and its file: the last file's that sets it.
    pub(crate) fn get(&self, key: &str) -> Option<(&ConfigFile, &Setting)> {
        self.files
            .iter()
            .rev()
            .find_map(|file| file.get(key).map(|setting| (file, setting)))
    }
}

/// The nearest `cairn.toml` at or above `cwd`.
pub(crate) fn project_file(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|dir| dir.join(PROJECT_FILE))
        .find(|path| path.is_file())
}

/// `$XDG_CONFIG_HOME/cairn/config.toml`, else `$HOME/.config/cairn/config.toml` (the XDG Base
/// Directory specification's default); none when neither variable is set.
pub(crate) fn user_file() -> Option<PathBuf> {
    let from = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let base = from("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| from("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("cairn").join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &["inventory", "forks", "max-unavailable"];

    #[test]
    fn the_nearest_project_file_is_found_upwards_and_wins_over_nothing_else() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(project_file(&deep), None);
        let top = dir.path().join(PROJECT_FILE);
        std::fs::write(&top, "[defaults]\nforks = 3\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(project_file(&deep), Some(top.clone()));
        let near = dir.path().join("a").join(PROJECT_FILE);
        std::fs::write(&near, "[defaults]\nforks = 5\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(project_file(&deep), Some(near.clone()));
        let file = ConfigFile::read(&near, KEYS).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(file.get("forks").map(|s| s.value.as_str()), Some("5"));
        assert_eq!(file.get("forks").map(|s| s.line), Some(2));
    }
}
