//! `-q`, the default, `-v` and `-vv` (Ansible's levels): how much of a run is printed.

/// How much is printed on the terminal (`--json` always carries everything).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`: changes, failures, warnings and the recap.
    Quiet,
    /// Every action's line, logs, reboots, warnings, the recap.
    Normal,
    /// `-v`: also each command an action runs, and the output of failed actions.
    Verbose,
    /// `-vv`: also every command's output.
    All,
}

impl Verbosity {
    /// From `-q` and the number of `-v`s (clap keeps them apart).
    pub fn from_flags(quiet: bool, verbose: u8) -> Self {
        match (quiet, verbose) {
            (true, _) => Self::Quiet,
            (false, 0) => Self::Normal,
            (false, 1) => Self::Verbose,
            (false, _) => Self::All,
        }
    }
}
