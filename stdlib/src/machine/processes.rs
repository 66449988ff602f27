//! The simulated guest's process table (layer 1): the background servers cairn starts (see
//! [`crate::pair::background`]), which the tool owning each program reads when it is collected.

use std::collections::BTreeMap;

/// A background process in the simulated process table.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Process {
    pub(crate) argv: Vec<String>,
    pub(crate) log: String,
    pub(crate) started_millis: u64,
    /// The client the server waits for (`PEER=` in its start), when the start named one.
    #[serde(default)]
    pub(crate) peer: Option<String>,
}

/// The process table.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ProcessTable {
    pub(crate) next_pid: u64,
    pub(crate) running: BTreeMap<String, Process>,
}

/// The program of a command line, past `env VAR=VALUE...`.
pub(crate) fn program_of(argv: &[String]) -> &str {
    let skip = if argv
        .first()
        .is_some_and(|p| p == "env" || p.ends_with("/env"))
    {
        1 + argv.iter().skip(1).take_while(|a| a.contains('=')).count()
    } else {
        0
    };
    argv.get(skip)
        .map_or("", |p| p.rsplit('/').next().unwrap_or(p))
}
