//! `cairn runs`: the runs in the state folder and their state.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::{RunState, RunStore};

/// Lists every run; one whose `run.json` or journals cannot be read is listed as unreadable,
/// with the reason, and the listing goes on.
pub(crate) fn runs(state: &Path) -> miette::Result<ExitCode> {
    let store = RunStore::new(state);
    let ids = store.ids();
    if ids.is_empty() {
        say!("no runs in {}", state.display());
    }
    for id in ids {
        let meta = match store.meta(&id) {
            Ok(meta) => meta,
            Err(error) => {
                say!("{id}  {:<10}  {}", "unreadable", one_line(&error));
                continue;
            }
        };
        let status = match store.state(&id) {
            Ok(RunState::Done) => "done",
            Ok(RunState::Failed) => "failed",
            Ok(RunState::Unfinished) => "unfinished",
            Err(_) => "unreadable",
        };
        say!(
            "{id}  {status:<10}  {} host(s)  {}",
            meta.hosts.len(),
            meta.runbook.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// An error with its causes, on one line.
fn one_line(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
