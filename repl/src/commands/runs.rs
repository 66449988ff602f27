//! `cairn runs`: the runs in the state folder and their state.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::{RunState, RunStore};

pub(crate) fn runs(state: &Path) -> miette::Result<ExitCode> {
    let store = RunStore::new(state);
    let ids = store.ids();
    if ids.is_empty() {
        say!("no runs in {}", state.display());
    }
    for id in ids {
        let meta = store.meta(&id)?;
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
