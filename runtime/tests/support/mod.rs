//! Helpers for runtime tests: run a runbook text on local hosts and read the journals back.

#![allow(dead_code, unreachable_pub)]

pub(crate) mod run_request;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cairn_runtime::journal::{HostJournal, JournalEvent};
use cairn_runtime::{
    Cancel, EventSink, HostInfo, LocalTransport, PreparedRun, RunError, RunHost, RunOptions,
    RunReport, RunRequest, Runbook, Transport, execute,
};

pub struct Lab {
    pub dir: tempfile::TempDir,
}

impl Default for Lab {
    fn default() -> Self {
        Self::new()
    }
}

impl Lab {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
        path
    }

    pub fn run_dir(&self) -> PathBuf {
        let dir = self.path().join("run");
        std::fs::create_dir_all(&dir).expect("run dir");
        dir
    }

    /// Runs `text` on `hosts` (name, groups) over local transports.
    pub fn run(
        &self,
        text: &str,
        hosts: &[(&str, &[&str])],
        params: &[(&str, &str)],
        resume: bool,
    ) -> Result<RunReport, RunError> {
        let path = self.write("book.rhai", text);
        let hosts = hosts
            .iter()
            .map(|(name, groups)| RunHost {
                info: HostInfo {
                    groups: std::iter::once("all")
                        .chain(groups.iter().copied())
                        .map(str::to_owned)
                        .collect(),
                    name: (*name).to_owned(),
                    vars: BTreeMap::new(),
                },
                transport: Ok(Box::new(LocalTransport) as Box<dyn Transport>),
            })
            .collect();
        let request = RunRequest {
            hosts,
            options: RunOptions {
                forks: 4,
                max_operations: 100_000,
                lease_dir: Some(self.run_dir().with_file_name("leases")),
                ..RunOptions::default()
            },
            prepared: PreparedRun::new(
                Runbook::load(&path).expect("runbook"),
                &[],
                u64::MAX,
                params
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            )?,
            resume,
            ..run_request::fresh(
                Runbook::load(&path).expect("runbook"),
                self.run_dir(),
                "test",
            )
        };
        execute(request, Cancel::default(), EventSink::none())
    }

    pub fn journal(&self, host: &str) -> HostJournal {
        HostJournal::load(&self.run_dir().join(format!("{host}.jsonl")), false).expect("journal")
    }

    pub fn logs(&self, host: &str) -> Vec<String> {
        self.journal(host)
            .events
            .into_iter()
            .filter_map(|(_, e)| match e {
                JournalEvent::Log(l) => Some(l.message),
                _ => None,
            })
            .collect()
    }
}
