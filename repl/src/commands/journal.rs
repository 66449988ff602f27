//! `cairn journal`: a host's timeline, or its records as JSON lines.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::RunStore;
use cairn_runtime::journal::HostJournal;

use crate::timeline::describe;

pub(crate) fn journal(
    state: &Path,
    run_id: Option<String>,
    host: &str,
    json: bool,
) -> miette::Result<ExitCode> {
    let store = RunStore::new(state);
    let Some(id) = run_id.or_else(|| store.ids().pop()) else {
        return Err(miette::miette!("no runs in {}", state.display()));
    };
    let path = store.journal_path(&id, host);
    if !path.exists() {
        return Err(miette::miette!(
            help = "`cairn runs` lists the runs",
            "run {id} has no journal for `{host}`"
        ));
    }
    let journal = HostJournal::load(&path, false)?;
    if let Some(line) = journal.torn_line {
        eprintln!(
            "warning: line {line} of {} is torn (a crash during a write) and was dropped",
            path.display()
        );
    }
    for (line, event) in &journal.events {
        if json {
            say!("{}", serde_json::to_string(event).unwrap_or_default());
        } else if let Some(text) = describe(event) {
            say!("{line:>5}  {text}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
