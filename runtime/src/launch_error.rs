//! Why a run does not start or resume: [`LaunchError`], apart from the launcher so the resume
//! choices (`--from-stage`, `--assume`) can refuse a flag without importing the launcher.

use crate::inventory::{InventoryError, PatternError};
use crate::journal::JournalError;
use crate::ssh::FdLimitError;
use crate::{ParamError, RunError, RunbookError};

/// What can stop a run before it starts.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum LaunchError {
    /// The inventory is wrong.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Inventory(#[from] InventoryError),
    /// A journal or run folder is unreadable.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Journal(#[from] JournalError),
    /// A `--assume` or `--restart-host` value that does not fit the run.
    #[error("{message}")]
    #[diagnostic(code(cairn::runtime::resume_flag))]
    Flag {
        /// What is wrong.
        message: String,
        /// A did-you-mean, or what to do instead.
        #[help]
        help: Option<String>,
    },
    /// A `--max-unavailable` group the inventory does not have.
    #[error("{message}")]
    #[diagnostic(code(cairn::runtime::max_unavailable))]
    BudgetGroup {
        /// What is wrong.
        message: String,
        /// A did-you-mean, or the inventory's groups.
        #[help]
        help: Option<String>,
    },
    /// Journals that are missing, empty or headerless, so what those hosts did is unknown.
    #[error(
        "run {run_id}: the journal of {} host(s) is lost, so what they did is unknown; nothing was run: {}",
        .hosts.len(),
        .hosts.join(", ")
    )]
    #[diagnostic(
        code(cairn::runtime::journal_lost),
        help(
            "restore the journal from a copy, or run the host again from scratch (every action, including reboots): `cairn resume {run_id} --restart-host HOST` (repeatable)"
        )
    )]
    LostJournals {
        /// Each host, with why its journal counts as lost.
        hosts: Vec<String>,
        /// The run.
        run_id: String,
    },
    /// Another process drives the run, or its lock cannot be taken.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Lock(#[from] crate::LockError),
    /// There is no run to resume.
    #[error("no unfinished run in `{0}`")]
    #[diagnostic(code(cairn::runtime::no_run), help("`cairn runs` lists the runs"))]
    NoRun(String),
    /// A simulated host's saved state does not fit the inventory.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Sim(#[from] crate::sim::SimError),
    /// The run named is not there.
    #[error(transparent)]
    #[diagnostic(transparent)]
    UnknownRun(#[from] crate::UnknownName),
    /// Even the hard open-file limit is too low for the run.
    #[error(transparent)]
    #[diagnostic(transparent)]
    FdLimit(#[from] FdLimitError),
    /// The run refused to start.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Run(#[from] RunError),
    /// The runbook is unreadable.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Runbook(#[from] RunbookError),
    /// `cairn check` finds problems in the runbook: nothing was run.
    #[error("{} problem(s) in {runbook}; nothing was run", problems.len())]
    #[diagnostic(
        code(cairn::runtime::check),
        help("`cairn check RUNBOOK -i INVENTORY` finds these without running anything")
    )]
    Check {
        /// The problems, each with its span.
        #[related]
        problems: Vec<RunbookError>,
        /// The runbook.
        runbook: String,
    },
    /// A `--param` the runbook cannot take.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Param(#[from] ParamError),
    /// A `--limit` pattern that matches nothing, or a term no host or group has.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Pattern(#[from] PatternError),
}
