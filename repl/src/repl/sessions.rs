//! The hosts a REPL can be on, and opening a session on one: its transport, and a journal of
//! its own under `.cairn/repl/`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cairn_runtime::inventory::HostSpec;
use cairn_runtime::launch::Launcher;
use cairn_runtime::{HostInfo, Installer, Session, Transport};

use super::Target;

/// Opens sessions on the hosts of a REPL.
pub(crate) struct Sessions {
    hosts: Vec<HostSpec>,
    journals: PathBuf,
    launcher: Launcher,
    /// A `--sim` host keeps its state in a temporary folder; its journals stay.
    _scratch: Option<tempfile::TempDir>,
    /// The host to start on.
    pub(crate) start: String,
    transports: Launcher,
}

impl Sessions {
    pub(crate) fn new(state: &Path, target: Target) -> miette::Result<Self> {
        let scratch = match &target {
            Target::Sim { .. } => {
                Some(tempfile::tempdir().map_err(|e| miette::miette!("temporary folder: {e}"))?)
            }
            Target::Inventory { .. } => None,
        };
        let launcher = crate::assembly::launcher(state);
        let transports = match &scratch {
            Some(dir) => crate::assembly::over(&launcher, dir.path()),
            None => crate::assembly::over(&launcher, state),
        };
        let (hosts, start) = match target {
            Target::Inventory { hosts, start } => (hosts, start),
            Target::Sim { host } => {
                let start = host.name.clone();
                (vec![host], start)
            }
        };
        Ok(Self {
            hosts,
            journals: state.join("repl"),
            launcher,
            _scratch: scratch,
            start,
            transports,
        })
    }

    /// Sessions for a run's failed hosts: no inventory to switch in, transports come shared.
    pub(crate) fn bare(state: &Path) -> Self {
        let launcher = crate::assembly::launcher(state);
        Self {
            hosts: Vec::new(),
            journals: state.join("repl"),
            transports: crate::assembly::over(&launcher, state),
            launcher,
            _scratch: None,
            start: String::new(),
        }
    }

    /// The transports of the hosts `host`'s vars name (its management host), which a runbook
    /// loaded on it reaches; one that cannot be opened is left out (the action that needs it
    /// then says it is missing).
    pub(crate) fn helpers(&self, host: &str) -> Vec<cairn_runtime::Helper> {
        cairn_runtime::inventory::helpers(&self.hosts, &[host.to_owned()])
            .into_iter()
            .filter_map(|name| {
                let spec = self.hosts.iter().find(|h| h.name == name)?;
                let transport = self.transports.open(spec, false, None).ok()?;
                Some((name, Arc::new(Mutex::new(transport))))
            })
            .collect()
    }

    /// A session on host `name`, and its journal.
    pub(crate) fn open(&self, name: &str) -> miette::Result<(Session, PathBuf)> {
        let Some(spec) = self.hosts.iter().find(|h| h.name == name) else {
            return Err(miette::miette!(
                help = "`:hosts` lists them",
                "no host `{name}` in the inventory"
            ));
        };
        let transport = self
            .transports
            .open(spec, false, None)
            .map_err(|e| miette::miette!("{}: {e}", spec.name))?;
        let info = HostInfo {
            groups: spec.groups.clone(),
            name: spec.name.clone(),
            vars: spec.vars.clone(),
        };
        self.open_on(info, Arc::new(Mutex::new(transport)))
    }

    /// A session on `info` through a transport shared with a paused runbook.
    pub(crate) fn open_on(
        &self,
        info: HostInfo,
        transport: Arc<Mutex<Box<dyn Transport>>>,
    ) -> miette::Result<(Session, PathBuf)> {
        let journal = self.journal(&info.name, None);
        // `hosts("GROUP")` sees the inventory's hosts (or only this one, without an inventory).
        let mut peers: Vec<HostInfo> = self
            .hosts
            .iter()
            .map(|spec| HostInfo {
                groups: spec.groups.clone(),
                name: spec.name.clone(),
                vars: spec.vars.clone(),
            })
            .collect();
        if !peers.iter().any(|peer| peer.name == info.name) {
            peers.push(info.clone());
        }
        let session = Session::open_among(
            info,
            transport,
            &journal,
            &self.launcher.libraries,
            Path::new("runbooks"),
            peers,
        )?;
        Ok((session, journal))
    }

    /// A new journal file for `host`: the session's, or a loaded runbook's (`<stem>`).
    pub(crate) fn journal(&self, host: &str, runbook: Option<&Path>) -> PathBuf {
        let id = self.launcher.runs.new_run_id();
        let stem = runbook
            .and_then(Path::file_stem)
            .and_then(|s| s.to_str())
            .map(|stem| format!(".{stem}"))
            .unwrap_or_default();
        // Two sessions on one host within a second get files of their own.
        (1..)
            .map(|n| match n {
                1 => format!("{id}-{host}{stem}.jsonl"),
                n => format!("{id}-{n}-{host}{stem}.jsonl"),
            })
            .map(|name| self.journals.join(name))
            .find(|path| !path.exists())
            .unwrap_or_else(|| self.journals.join(format!("{id}-{host}{stem}.jsonl")))
    }

    /// The builtins.
    pub(crate) fn libraries(&self) -> &[Installer] {
        &self.launcher.libraries
    }

    /// The hosts' names, for completion.
    pub(crate) fn names(&self) -> Vec<String> {
        self.hosts.iter().map(|h| h.name.clone()).collect()
    }

    /// `:hosts [PATTERN]`: every host, or those a `--limit` pattern selects.
    pub(crate) fn print_hosts(&self, current: &str, pattern: &str) {
        let inventory = cairn_runtime::inventory::Inventory::from_hosts(self.hosts.clone());
        let selected = if pattern.is_empty() {
            inventory.hosts().iter().collect()
        } else {
            match cairn_runtime::inventory::HostPattern::parse(pattern)
                .and_then(|p| p.select(&inventory))
            {
                Ok(selected) => selected,
                Err(error) => {
                    eprintln!("{:?}", miette::Report::new(error));
                    return;
                }
            }
        };
        for host in selected {
            let mark = if host.name == current { "*" } else { " " };
            println!(
                "{mark} {:<16} {:<32} {}",
                host.name,
                host.address.to_string(),
                host.groups.join(",")
            );
        }
    }
}
