//! A new run's request with nothing to resume, assume or import, for the tests and the bench
//! to fill in the rest of.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cairn_runtime::{PreparedRun, RunOptions, RunRequest, Runbook};

/// A fresh run `run_id` of `runbook` (compiled, without params) into `run_dir`: no hosts or
/// options yet.
pub(crate) fn fresh(runbook: Runbook, run_dir: PathBuf, run_id: &str) -> RunRequest {
    RunRequest {
        assume: None,
        from_stage: None,
        helpers: Vec::new(),
        hosts: Vec::new(),
        inventory: "inline".into(),
        libraries: Vec::new(),
        options: RunOptions::default(),
        prepared: PreparedRun::new(runbook, &[], u64::MAX, BTreeMap::new()).expect("compiles"),
        resume: false,
        run_dir,
        run_id: run_id.into(),
    }
}
