//! Reaching the management host that runs `vhpc_toolkit`: the inventory var `vhpc_host` names
//! it, and its transport is the run's (`RunShared::exec_on`), locked for each command.
//!
//! The runtime has no API to run an action on another host's transport; this is the minimal
//! version. The action is journaled on the calling (ESXi) host; the commands run on the
//! management host, whose own instance does not hold its transport while it waits at a stage.

use std::sync::Arc;

use cairn_runtime::{ActionError, ExecOutput, ExecRequest, HostContext};

/// The management host and the `vhpc_toolkit` program to run there.
pub(crate) struct Management {
    host: Arc<HostContext>,
    name: String,
    /// The program (`vhpc_toolkit`, or the var `vhpc_toolkit`, e.g. `/opt/vhpc/bin/vhpc_toolkit`).
    pub(crate) program: String,
}

impl Management {
    /// The management host of the current host, from its vars.
    pub(crate) fn of(host: Arc<HostContext>) -> Result<Self, ActionError> {
        let var = |key: &str| {
            host.info
                .vars
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        let Some(name) = var("vhpc_host") else {
            return Err(ActionError::Failed(format!(
                "`{}` has no inventory var `vhpc_host`: it names the management host that runs vhpc_toolkit",
                host.info.name
            )));
        };
        if !host.shared.reaches(&name) {
            return Err(ActionError::Failed(format!(
                "the management host `{name}` (var `vhpc_host` of `{}`) is not in this run's inventory selection",
                host.info.name
            )));
        }
        if name == host.info.name {
            return Err(ActionError::WouldDeadlock {
                what: format!(
                    "`{name}` is its own `vhpc_host`: vhpc_toolkit runs on a management host, for other hosts' VMs"
                ),
                help: format!(
                    "set `vhpc_host` of `{name}` to the management host, or call vhpc:: only from hosts it manages"
                ),
            });
        }
        let program = var("vhpc_toolkit").unwrap_or_else(|| "vhpc_toolkit".to_owned());
        Ok(Self {
            host,
            name,
            program,
        })
    }

    /// Runs `argv` on the management host; a non-zero exit fails with its stderr.
    pub(crate) fn run(&self, argv: &[String]) -> Result<ExecOutput, ActionError> {
        let output = self
            .host
            .shared
            .exec_on(&self.name, &ExecRequest::new(argv.iter().cloned()))?;
        if output.code != 0 {
            return Err(ActionError::CommandFailed {
                code: output.code,
                command: format!("{} (on {})", argv.join(" "), self.name),
                stderr: if output.stderr.trim().is_empty() {
                    output.stdout
                } else {
                    output.stderr
                },
            });
        }
        // vhpc_toolkit logs a vCenter task that failed and still exits 0 (vmware/vhpc-toolkit
        // `wait.py`, `wait_for_tasks`: "Task NAME (number N) has an error - MSG").
        if let Some(line) = output
            .stdout
            .lines()
            .chain(output.stderr.lines())
            .find(|line| line.contains(") has an error - "))
        {
            return Err(ActionError::CommandFailed {
                code: output.code,
                command: format!("{} (on {})", argv.join(" "), self.name),
                stderr: line.trim().to_owned(),
            });
        }
        Ok(output)
    }
}
