//! The hosts of one takeover trial and what their fences recorded: simulated hosts in the
//! controller's own process (their folders shared through `CAIRN_SIM_DIR`, so the standby's
//! process reaches the same hosts), or simulated hosts behind real sshd servers on loopback
//! (`ssh_lab`), each command a process of its own that goes on whatever the controller does.
//! Either way each host's folder holds `fenced.log`: the fence's record of every changing
//! command it let through, with its step id, epoch and caller.

use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_tests::Lab;
use serde_json::Value;

use crate::ssh_lab::SshLab;

/// Where a trial's hosts run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum HostKind {
    /// In the process of whoever drives them (`sim:linux`).
    InProcess,
    /// Behind sshd, `cairn-simhost` answering each command in a process of its own.
    Ssh,
}

/// Three changing commands around two reboots of 2 s: a run of about 6 s.
pub(crate) const BOOK: &str = "stage \"s\" on all {\n    run([\"echo\", \"A\"]);\n    reboot();\n    \
                               run([\"echo\", \"B\"]);\n    reboot();\n    run([\"echo\", \"C\"]);\n}\n";
/// The runbook's changing commands, as the fence logs them.
pub(crate) const COMMANDS: [&str; 3] = ["echo A", "echo B", "echo C"];
/// How many hosts a trial's run has.
pub(crate) const HOST_COUNT: usize = 4;

/// A trial's hosts.
pub(crate) struct Fleet {
    /// The folder holding a folder per host.
    dir: PathBuf,
    hosts: Vec<String>,
    /// The sshd servers, stopped when the fleet is dropped.
    ssh: Option<SshLab>,
}

impl Fleet {
    /// A fleet of `kind`; an in-process one keeps its hosts' folders in `lab`.
    pub(crate) fn new(kind: HostKind, lab: &Lab) -> Self {
        match kind {
            HostKind::InProcess => {
                let dir = lab.path().join("fleet");
                if let Err(e) = std::fs::create_dir_all(&dir) {
                    panic!("{}: {e}", dir.display());
                }
                let hosts = (1..=HOST_COUNT).map(|n| format!("n{n}")).collect();
                Self {
                    dir,
                    hosts,
                    ssh: None,
                }
            }
            HostKind::Ssh => {
                let ssh = SshLab::start(HOST_COUNT, "reboot_secs=2");
                Self {
                    dir: ssh.lab.path().join("simstate"),
                    hosts: ssh.names(),
                    ssh: Some(ssh),
                }
            }
        }
    }

    /// The inventory of the fleet's hosts.
    pub(crate) fn inventory(&self) -> String {
        match &self.ssh {
            Some(ssh) => ssh.inventory(),
            None => {
                format!("[hosts.\"n[1-{HOST_COUNT}]\"]\naddress = \"sim:linux?reboot_secs=2\"\n")
            }
        }
    }

    /// `command` made to reach the fleet: the shared simulator folder, or the SSH lab's
    /// `HOME` (its `~/.ssh/config` and `known_hosts`) and no agent.
    pub(crate) fn reach(&self, mut command: Command) -> Command {
        match &self.ssh {
            Some(ssh) => {
                command
                    .env("HOME", ssh.lab.path().join("home"))
                    .env_remove("SSH_AUTH_SOCK");
            }
            None => {
                command.env("CAIRN_SIM_DIR", &self.dir);
            }
        }
        command
    }

    /// What host `host`'s fence let through, oldest first.
    pub(crate) fn fenced(&self, host: &str) -> Vec<Fenced> {
        read_fenced(&self.dir.join(host).join("fenced.log"))
    }

    /// Every host's fenced commands.
    pub(crate) fn all_fenced(&self) -> Vec<Fenced> {
        self.hosts
            .iter()
            .flat_map(|host| self.fenced(host))
            .collect()
    }

    /// Whether any host ran a changing command yet.
    pub(crate) fn started(&self) -> bool {
        self.hosts.iter().any(|host| !self.fenced(host).is_empty())
    }

    /// Whether every host ran every command of the runbook.
    pub(crate) fn complete(&self) -> bool {
        self.hosts.iter().all(|host| {
            let commands = self
                .fenced(host)
                .into_iter()
                .filter(|line| COMMANDS.contains(&line.command.as_str()))
                .count();
            commands >= COMMANDS.len()
        })
    }

    /// How many changing commands the process `pid` ran, over all hosts.
    pub(crate) fn count_by(&self, pid: &str) -> usize {
        self.all_fenced()
            .iter()
            .filter(|line| line.pid == pid)
            .count()
    }

    /// Commands `old` ran on a host after `new`'s first command there.
    pub(crate) fn after_takeover(&self, old: &str, new: &str) -> usize {
        self.hosts
            .iter()
            .map(|host| {
                self.fenced(host)
                    .iter()
                    .skip_while(|line| line.pid != new)
                    .filter(|line| line.pid == old)
                    .count()
            })
            .sum()
    }

    /// Each host's fence log, a line a command (step, epoch, caller's pid, command), for a
    /// trial that found something wrong.
    pub(crate) fn describe(&self) -> String {
        let mut text = String::new();
        for host in &self.hosts {
            text.push_str(&format!("{host}:\n"));
            for line in self.fenced(host) {
                text.push_str(&format!(
                    "  {} epoch {} pid {} {}\n",
                    line.step, line.epoch, line.pid, line.command
                ));
            }
        }
        text
    }

    /// Each runbook command once per host, no step twice, epochs never down.
    pub(crate) fn check(&self, asked: bool) -> FleetCheck {
        let mut check = FleetCheck::default();
        for host in &self.hosts {
            let lines = self.fenced(host);
            for command in COMMANDS {
                let times = lines.iter().filter(|line| line.command == command).count();
                check.duplicates += times.saturating_sub(1);
                check.missing += usize::from(times == 0 && !asked);
            }
            let mut steps: Vec<&str> = lines.iter().map(|line| line.step.as_str()).collect();
            steps.sort_unstable();
            let before = steps.len();
            steps.dedup();
            check.disorder += before - steps.len();
            check.disorder += lines
                .windows(2)
                .filter(|pair| pair[1].epoch < pair[0].epoch)
                .count();
        }
        check
    }
}

/// What the fleet's fence logs say against the runbook.
#[derive(Debug, Default)]
pub(crate) struct FleetCheck {
    /// Commands run more than once, over all hosts.
    pub(crate) duplicates: usize,
    /// Commands of the runbook never run.
    pub(crate) missing: usize,
    /// Step ids seen twice, or epochs that went down.
    pub(crate) disorder: usize,
}

/// One line of a host's `fenced.log`.
pub(crate) struct Fenced {
    step: String,
    epoch: u64,
    /// The process of the caller.
    pub(crate) pid: String,
    command: String,
}

fn read_fenced(path: &Path) -> Vec<Fenced> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|line| {
            Some(Fenced {
                step: line["step"].as_str()?.to_owned(),
                epoch: line["epoch"].as_u64()?,
                // The caller is `RUN@CONTROLLER:PID`.
                pid: line["owner"].as_str()?.rsplit(':').next()?.to_owned(),
                command: line["command"].as_str()?.to_owned(),
            })
        })
        .collect()
}
