//! `cairn journal`: a host's timeline, or its records as JSON lines.

use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::journal::HostJournal;
use cairn_runtime::{CONTROLLER, RunFolders, UnknownName};
use clap::Args;

use super::Context;
use crate::timeline::describe;

/// `cairn journal [RUN-ID] HOST [--json]`.
#[derive(Debug, Args)]
pub(crate) struct JournalArgs {
    /// `[RUN-ID] HOST`: the run (default: the newest) and the host.
    #[arg(required = true, num_args = 1..=2, value_names = ["RUN-ID", "HOST"])]
    run_and_host: Vec<String>,
    /// Print the records as JSON lines.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: crate::store_args::StoreArgs,
}

impl JournalArgs {
    pub(crate) fn execute(mut self, context: &Context) -> miette::Result<ExitCode> {
        // clap gives one or two values: the last is the host.
        let host = self.run_and_host.pop().unwrap_or_default();
        let run_id = self.run_and_host.pop();
        let (store, _) = self.store.runs(&context.state, run_id.as_deref())?;
        journal(&store, &context.state, run_id, &host, self.json)
    }
}

fn journal(
    store: &RunFolders,
    state: &Path,
    run_id: Option<String>,
    host: &str,
    json: bool,
) -> miette::Result<ExitCode> {
    let id = match run_id {
        Some(id) => store.known_id(&id)?,
        None => store
            .ids()
            .pop()
            .ok_or_else(|| miette::miette!("no runs in {}", state.display()))?,
    };
    let path = store.journal_path(&id, host);
    if !path.exists() {
        let mut hosts = store.meta(&id).map(|meta| meta.hosts).unwrap_or_default();
        hosts.retain(|name| store.journal_path(&id, name).exists());
        if store.journal_path(&id, CONTROLLER).exists() {
            hosts.push(CONTROLLER.to_owned());
        }
        let what = format!("run {id} has no journal for `{host}`");
        return Err(UnknownName::new(what, host, &hosts, "its hosts with a journal").into());
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
