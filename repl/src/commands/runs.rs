//! `cairn runs`: the runs in the state folder and their state.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use cairn_runtime::{Driver, EVENTS_SCHEMA_VERSION, RunFolders, RunState};
use cairn_store_pg::RunDriver;
use clap::Args;

use super::Context;

/// `cairn runs [--json]`.
#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// One JSON object per run (docs/events.md).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: crate::store_args::StoreArgs,
}

impl RunsArgs {
    pub(crate) fn execute(self, context: &Context) -> miette::Result<ExitCode> {
        let (store, connection) = self.store.runs(&context.state, None)?;
        let live = match connection {
            Some(connection) => connection.live_drivers(store.ids())?,
            None => BTreeMap::new(),
        };
        runs(&store, &context.state, self.json, &live)
    }
}

/// Lists every run; one whose `run.json` or journals cannot be read is listed as unreadable,
/// with the reason, and the listing goes on. `--json`: one object per run, as the events are
/// written (docs/events.md: `schema`, milliseconds, nothing cut).
fn runs(
    store: &RunFolders,
    state: &Path,
    json: bool,
    live: &BTreeMap<String, RunDriver>,
) -> miette::Result<ExitCode> {
    let ids = store.ids();
    if ids.is_empty() && !json {
        say!("no runs in {}", state.display());
    }
    for id in ids {
        let meta = match store.meta(&id) {
            Ok(meta) => meta,
            Err(error) => {
                if json {
                    let line = serde_json::json!({
                        "schema": EVENTS_SCHEMA_VERSION, "run_id": id, "state": "unreadable",
                        "error": one_line(&error),
                    });
                    say!("{line}");
                } else {
                    say!("{id}  {:<10}  {}", "unreadable", one_line(&error));
                }
                continue;
            }
        };
        let driver = Driver::of(&store.run_dir(&id));
        // On a shared store the driver may be on another machine: its live session says so.
        let remote = live.get(&id);
        let status = match (store.state(&id), &driver) {
            (_, Some(driver)) if driver.stopped => "stopped",
            (_, Some(_)) => "running",
            (Ok(RunState::Unfinished), None) if remote.is_some() => "running",
            (Ok(RunState::Done), None) => "done",
            (Ok(RunState::Failed), None) => "failed",
            (Ok(RunState::Unfinished), None) => "unfinished",
            (Err(_), None) => "unreadable",
        };
        if json {
            let line = serde_json::json!({
                "schema": EVENTS_SCHEMA_VERSION, "run_id": id, "state": status, "at": meta.at,
                "runbook": meta.runbook, "inventory": meta.inventory, "hosts": meta.hosts,
                "params": meta.params, "driver_pid": driver.map(|d| d.pid),
            });
            say!("{line}");
            continue;
        }
        let driven = match driver {
            Some(Driver { pid, stopped: true }) => format!(
                "  driver pid {pid} is stopped: `kill -CONT {pid}` lets it go on, `kill {pid}` ends it"
            ),
            Some(Driver { pid, .. }) => format!("  driven by pid {pid}"),
            None => remote.map_or_else(String::new, |d| format!("  driven by {}", d.describe())),
        };
        say!(
            "{id}  {status:<10}  {} host(s)  {}{driven}",
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
