//! Host names are file names: a host's journal is `<name>.jsonl` and a simulated host keeps its
//! state in a folder named after it, so a name must be one safe path component.

use crate::CONTROLLER;

/// The journal's suffix, which the name must leave room for in 255 bytes.
const JOURNAL_SUFFIX: &str = ".jsonl";

/// The longest name a file system takes for one path component, in bytes.
const NAME_MAX: usize = 255;

/// Why `name` cannot be a host's name, if it cannot.
pub(crate) fn check(name: &str) -> Result<(), String> {
    let longest = NAME_MAX - JOURNAL_SUFFIX.len();
    if name == "." || name == ".." {
        Err(format!("`{name}` is a folder, not a file name"))
    } else if name.contains('/') || name.contains('\0') {
        Err("a host name cannot contain `/` or NUL".into())
    } else if name.len() > longest {
        Err(format!(
            "it is {} bytes long; a host name has at most {longest}, so that `<name>{JOURNAL_SUFFIX}` fits in {NAME_MAX}",
            name.len()
        ))
    } else if name == CONTROLLER {
        Err(format!(
            "`{CONTROLLER}` is the interpreter's own instance, whose journal is `{CONTROLLER}.jsonl`"
        ))
    } else {
        Ok(())
    }
}

/// The name as a message shows it: shortened when long.
pub(crate) fn shown(name: &str) -> String {
    if name.chars().count() <= 40 {
        return name.to_owned();
    }
    let head: String = name.chars().take(32).collect();
    format!("{head}… ({} bytes)", name.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_names_that_are_no_safe_file_name() {
        for bad in [".", "..", "a/b", "controller"] {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert!(check(&"a".repeat(249)).is_ok());
        assert!(check(&"a".repeat(250)).is_err());
        assert!(check("node-01.lab").is_ok());
        assert!(shown(&"a".repeat(300)).ends_with("(300 bytes)"));
    }
}
