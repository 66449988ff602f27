//! A new run's request with nothing to resume, assume or import, for the tests and the bench
//! to fill in the rest of.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cairn_runtime::{RunOptions, RunRequest, Runbook};

/// A fresh run `run_id` of `runbook` into `run_dir`: no hosts, params or options yet.
pub(crate) fn fresh(runbook: Runbook, run_dir: PathBuf, run_id: &str) -> RunRequest {
    RunRequest {
        assume: None,
        from_stage: None,
        helpers: Vec::new(),
        hosts: Vec::new(),
        inventory: "inline".into(),
        libraries: Vec::new(),
        options: RunOptions::default(),
        params: BTreeMap::new(),
        resume: false,
        run_dir,
        run_id: run_id.into(),
        runbook,
    }
}
