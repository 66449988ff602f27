//! The live status area's text: the current stage, how many hosts are done, running, waiting
//! and failed, the batch, and what the run waits for (`waiting for esx05 (rebooting, 94 s)`).
//! Built from events only, so the executor's barriers, batches and disruption budget show up
//! by sending `Waiting` and `BatchStarted`.

use std::collections::HashMap;

use crate::journal::HostStatus;
use crate::{RunEvent, Stamped};

use super::cut_to_width;

#[derive(Debug, Clone, PartialEq)]
enum HostState {
    /// Not in a stage yet, or between stages (at a barrier).
    Waiting,
    /// In a stage.
    Running,
    /// Down for a reboot since this moment.
    Rebooting(u64),
    /// Held back for this reason since this moment.
    HeldBack(String, u64),
    Ended(HostStatus),
}

/// What the status area shows, kept up to date by [`StatusBoard::observe`].
#[derive(Debug, Default)]
pub struct StatusBoard {
    batch: Option<(u64, u64)>,
    check: bool,
    hosts: HashMap<String, HostState>,
    stage: Option<(u64, String)>,
    stages: usize,
}

impl StatusBoard {
    /// An empty board.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event into account.
    pub fn observe(&mut self, stamped: &Stamped) {
        let at = stamped.at;
        let (host, state) = match &stamped.event {
            RunEvent::RunStarted {
                check,
                hosts,
                stages,
                ..
            } => {
                self.check = *check;
                self.stages = stages.len();
                for host in hosts {
                    self.hosts.insert(host.clone(), HostState::Waiting);
                }
                return;
            }
            RunEvent::BatchStarted { batch, batches, .. } => {
                self.batch = Some((*batch, *batches));
                return;
            }
            RunEvent::StageStarted {
                host, index, name, ..
            } => {
                if self.stage.as_ref().is_none_or(|(seen, _)| index > seen) {
                    self.stage = Some((*index, name.clone()));
                    self.batch = None;
                }
                (host, HostState::Running)
            }
            RunEvent::ActionStarted { host, .. } | RunEvent::Rebooted { host, .. } => {
                (host, HostState::Running)
            }
            RunEvent::StageFinished { host, .. } => (host, HostState::Waiting),
            RunEvent::Rebooting { host } => (host, HostState::Rebooting(at)),
            RunEvent::Waiting { host, reason } => (host, HostState::HeldBack(reason.clone(), at)),
            RunEvent::BudgetWait {
                host,
                group,
                limit,
                holders,
                ..
            } => (
                host,
                HostState::HeldBack(
                    crate::run::event::budget_wait_text(group.as_deref(), *limit, holders),
                    at,
                ),
            ),
            RunEvent::HostFinished { host, status, .. } => (host, HostState::Ended(*status)),
            _ => return,
        };
        if host != "controller" {
            self.hosts.insert(host.clone(), state);
        }
    }

    /// The status line at `now` (ms since the epoch), cut to `width` columns.
    pub fn line(&self, now: u64, width: Option<usize>) -> String {
        let (mut done, mut running, mut waiting, mut failed, mut stopped) = (0, 0, 0, 0, 0);
        let mut rebooting: Vec<(&str, u64)> = Vec::new();
        let mut held: Option<(&str, &str, u64)> = None;
        let mut in_stage: Vec<&str> = Vec::new();
        for (host, state) in &self.hosts {
            match state {
                HostState::Ended(HostStatus::Done) => done += 1,
                HostState::Ended(HostStatus::Failed) => failed += 1,
                HostState::Ended(HostStatus::Cancelled) => stopped += 1,
                HostState::Running => {
                    running += 1;
                    in_stage.push(host);
                }
                HostState::Waiting => waiting += 1,
                HostState::Rebooting(since) => {
                    waiting += 1;
                    rebooting.push((host, *since));
                }
                HostState::HeldBack(reason, since) => {
                    waiting += 1;
                    if held.is_none_or(|(_, _, other)| *since < other) {
                        held = Some((host, reason, *since));
                    }
                }
            }
        }
        let mut parts = Vec::new();
        parts.push(match &self.stage {
            Some((index, name)) if self.stages >= *index as usize => {
                format!("stage {index}/{} {name}", self.stages)
            }
            Some((index, name)) => format!("stage {index} {name}"),
            None => "starting".to_owned(),
        });
        let mut counts =
            format!("{done} done · {running} running · {waiting} waiting · {failed} failed");
        if stopped > 0 {
            counts.push_str(&format!(" · {stopped} stopped"));
        }
        parts.push(counts);
        if let Some((batch, batches)) = self.batch {
            parts.push(format!("batch {batch}/{batches}"));
        }
        // The longest reboot is what a barrier or the budget waits for longest.
        rebooting.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
        if let Some((host, since)) = rebooting.first() {
            let mut wait = format!(
                "waiting for {host} (rebooting, {} s)",
                now.saturating_sub(*since) / 1000
            );
            if rebooting.len() > 1 {
                wait.push_str(&format!(" +{} rebooting", rebooting.len() - 1));
            }
            parts.push(wait);
        } else if let Some((host, reason, since)) = held {
            parts.push(format!(
                "{host}: {reason} ({} s)",
                now.saturating_sub(since) / 1000
            ));
        } else if waiting > 0 && (1..=3).contains(&in_stage.len()) {
            // The next stage's barrier waits for the last few hosts still in this one.
            in_stage.sort_unstable();
            parts.push(format!("waiting for {} (running)", in_stage.join(", ")));
        }
        if self.check {
            parts.push("check mode".to_owned());
        }
        cut_to_width(&parts.join(" │ "), width).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(at: u64, event: RunEvent) -> Stamped {
        Stamped { at, event }
    }

    #[test]
    fn counts_the_stage_and_the_longest_reboot() {
        let mut board = StatusBoard::new();
        let hosts: Vec<String> = ["esx01", "esx05", "esx07", "esx09"]
            .map(str::to_owned)
            .to_vec();
        board.observe(&at(
            0,
            RunEvent::RunStarted {
                check: false,
                hosts: hosts.clone(),
                params: Default::default(),
                resume: false,
                run_id: "r".into(),
                runbook: "b".into(),
                schema: 1,
                stages: vec!["a".into(), "firmware".into(), "c".into()],
            },
        ));
        for host in &hosts {
            board.observe(&at(
                1000,
                RunEvent::StageStarted {
                    host: host.clone(),
                    index: 2,
                    member: true,
                    name: "firmware".into(),
                },
            ));
        }
        board.observe(&at(
            6_000,
            RunEvent::Rebooting {
                host: "esx05".into(),
            },
        ));
        board.observe(&at(
            9_000,
            RunEvent::Rebooting {
                host: "esx07".into(),
            },
        ));
        board.observe(&at(
            9_500,
            RunEvent::HostFinished {
                error: None,
                host: "esx09".into(),
                reboot_pending: None,
                status: HostStatus::Failed,
            },
        ));
        board.observe(&at(
            9_600,
            RunEvent::BatchStarted {
                batch: 2,
                batches: 5,
                hosts: vec![],
                stage: "firmware".into(),
            },
        ));
        let line = board.line(100_000, None);
        assert_eq!(
            line,
            "stage 2/3 firmware │ 0 done · 1 running · 2 waiting · 1 failed │ batch 2/5 │ waiting for esx05 (rebooting, 94 s) +1 rebooting"
        );
        assert!(board.line(100_000, Some(30)).ends_with('…'));
    }

    #[test]
    fn the_last_hosts_in_a_stage_are_what_the_barrier_waits_for() {
        let mut board = StatusBoard::new();
        let left = RunEvent::StageFinished {
            host: "a".into(),
            index: 1,
            name: "s".into(),
        };
        let acting = RunEvent::ActionStarted {
            arguments: serde_json::Value::Null,
            builtin: "run".into(),
            file: "f".into(),
            host: "b".into(),
            line: 1,
            seq: 1,
            stage: "s".into(),
            summary: "run".into(),
        };
        board.observe(&at(0, left));
        board.observe(&at(0, acting));
        let line = board.line(0, None);
        assert!(line.ends_with("│ waiting for b (running)"), "{line}");
    }

    #[test]
    fn a_wait_reason_from_an_event_is_shown() {
        let mut board = StatusBoard::new();
        board.observe(&at(
            1_000,
            RunEvent::Waiting {
                host: "esx03".into(),
                reason: "disruption budget: 2 of 2 hosts down".into(),
            },
        ));
        assert!(
            board
                .line(4_000, None)
                .ends_with("esx03: disruption budget: 2 of 2 hosts down (3 s)"),
            "{}",
            board.line(4_000, None)
        );
    }
}
