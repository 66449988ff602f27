//! The live status area's text: the current stage; how many hosts are done, running,
//! rebooting, queued for the disruption budget, waiting and failed; the batch; and what the
//! run waits for: the longest reboot (in the seconds the host's own lines print), who is queued
//! for the budget and why, what the running hosts run and for how long, and, after a first
//! signal, `stopping: waiting for N actions`. Built from events only, so the executor's
//! barriers, batches and disruption budget show up by the events they send.

use std::collections::HashMap;

use crate::journal::HostStatus;
use crate::{CONTROLLER, RunEvent, Stamped};

use super::cut_to_width;

/// Where a host's clock reads, as a moment on the wall and the clock's speed against it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Since {
    at: u64,
    scale: Option<u32>,
}

impl Since {
    /// Seconds from then to `now` on the host's clock.
    fn seconds(self, now: u64) -> u64 {
        now.saturating_sub(self.at)
            .saturating_mul(u64::from(self.scale.unwrap_or(1)))
            / 1000
    }
}

#[derive(Debug, Clone, PartialEq)]
enum HostState {
    /// Not in a stage yet, or between stages (at a barrier).
    Waiting,
    /// In a stage: running this action since then, or between two actions.
    Running(Option<(String, Since)>),
    /// Down for a reboot since then.
    Rebooting(Since),
    /// Queued for room in the disruption budget, for this reason, since this moment.
    Queued(String, u64),
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
    stopping: bool,
}

/// The hosts of one state, oldest first.
#[derive(Default)]
struct Tally<'a> {
    done: usize,
    failed: usize,
    stopped: usize,
    waiting: usize,
    /// Every host in a stage, with an action open or between two.
    in_stage: Vec<&'a str>,
    running: Vec<(&'a str, &'a str, Since)>,
    rebooting: Vec<(&'a str, Since)>,
    queued: Vec<(&'a str, &'a str, u64)>,
    held: Vec<(&'a str, &'a str, u64)>,
}

impl StatusBoard {
    /// An empty board.
    pub fn new() -> Self {
        Self::default()
    }

    /// The run was asked to stop: from now on the area says what it waits for to end.
    pub fn stopping(&mut self) {
        self.stopping = true;
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
                (host, HostState::Running(None))
            }
            RunEvent::ActionStarted {
                host,
                summary,
                clock_scale,
                ..
            } => {
                let since = Since {
                    at,
                    scale: *clock_scale,
                };
                (host, HostState::Running(Some((summary.clone(), since))))
            }
            RunEvent::ActionFinished { host, .. } | RunEvent::Rebooted { host, .. } => {
                (host, HostState::Running(None))
            }
            RunEvent::StageFinished { host, .. } => (host, HostState::Waiting),
            RunEvent::Rebooting { host, clock_scale } => {
                let since = Since {
                    at,
                    scale: *clock_scale,
                };
                (host, HostState::Rebooting(since))
            }
            RunEvent::Waiting { host, reason } => (host, HostState::HeldBack(reason.clone(), at)),
            RunEvent::BudgetWait {
                host,
                group,
                limit,
                holders,
                ..
            } => (
                host,
                HostState::Queued(
                    crate::run::event::budget_wait_text(group.as_deref(), *limit, holders),
                    at,
                ),
            ),
            RunEvent::HostFinished { host, status, .. } => (host, HostState::Ended(*status)),
            _ => return,
        };
        if host != CONTROLLER {
            self.hosts.insert(host.clone(), state);
        }
    }

    fn tally(&self) -> Tally<'_> {
        let mut tally = Tally::default();
        for (host, state) in &self.hosts {
            match state {
                HostState::Ended(HostStatus::Done) => tally.done += 1,
                HostState::Ended(HostStatus::Failed) => tally.failed += 1,
                HostState::Ended(HostStatus::Cancelled) => tally.stopped += 1,
                HostState::Running(Some((what, since))) => {
                    tally.in_stage.push(host);
                    tally.running.push((host, what, *since));
                }
                HostState::Running(None) => tally.in_stage.push(host),
                HostState::Waiting => tally.waiting += 1,
                HostState::Rebooting(since) => tally.rebooting.push((host, *since)),
                HostState::Queued(reason, since) => tally.queued.push((host, reason, *since)),
                HostState::HeldBack(reason, since) => tally.held.push((host, reason, *since)),
            }
        }
        tally.in_stage.sort_unstable();
        tally
            .running
            .sort_by(|a, b| a.2.at.cmp(&b.2.at).then(a.0.cmp(b.0)));
        tally
            .rebooting
            .sort_by(|a, b| a.1.at.cmp(&b.1.at).then(a.0.cmp(b.0)));
        tally
            .queued
            .sort_by(|a, b| a.2.cmp(&b.2).then(a.0.cmp(b.0)));
        tally.held.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.cmp(b.0)));
        tally
    }

    /// The status line at `now` (ms since the epoch), cut to `width` columns.
    pub fn line(&self, now: u64, width: Option<usize>) -> String {
        let tally = self.tally();
        let mut parts = Vec::new();
        parts.push(match &self.stage {
            Some((index, name)) if self.stages >= *index as usize => {
                format!("stage {index}/{} {name}", self.stages)
            }
            Some((index, name)) => format!("stage {index} {name}"),
            None => "starting".to_owned(),
        });
        let mut counts = format!("{} done · {} running", tally.done, tally.in_stage.len());
        for (count, what) in [
            (tally.rebooting.len(), "rebooting"),
            (tally.queued.len(), "queued"),
        ] {
            if count > 0 {
                counts.push_str(&format!(" · {count} {what}"));
            }
        }
        counts.push_str(&format!(
            " · {} waiting · {} failed",
            tally.waiting + tally.held.len(),
            tally.failed
        ));
        if tally.stopped > 0 {
            counts.push_str(&format!(" · {} stopped", tally.stopped));
        }
        parts.push(counts);
        if let Some((batch, batches)) = self.batch {
            parts.push(format!("batch {batch}/{batches}"));
        }
        if self.stopping {
            // A reboot being waited for is an action too: it ends at the next poll.
            let open = tally.running.len() + tally.rebooting.len();
            let actions = if open == 1 { "action" } else { "actions" };
            parts.push(format!("stopping: waiting for {open} {actions}"));
        }
        self.details(&tally, now, &mut parts);
        if self.check {
            parts.push("check mode".to_owned());
        }
        cut_to_width(&parts.join(" │ "), width).into_owned()
    }

    /// What the run waits for, most telling first: the longest reboot (what a barrier or the
    /// budget waits for longest), who is queued for the budget, what the running hosts run.
    fn details(&self, tally: &Tally<'_>, now: u64, parts: &mut Vec<String>) {
        if let Some((host, since)) = tally.rebooting.first() {
            let mut wait = format!("waiting for {host} (rebooting, {} s)", since.seconds(now));
            if tally.rebooting.len() > 1 {
                wait.push_str(&format!(" +{} rebooting", tally.rebooting.len() - 1));
            }
            parts.push(wait);
        }
        if let Some((_, reason, _)) = tally.queued.first() {
            parts.push(format!(
                "queued for the budget: {} ({reason})",
                names(tally.queued.iter().map(|q| q.0))
            ));
        }
        if let Some((host, reason, since)) = tally.held.first() {
            parts.push(format!(
                "{host}: {reason} ({} s)",
                now.saturating_sub(*since) / 1000
            ));
        }
        let waiting = tally.waiting + tally.held.len();
        if waiting > 0 && (1..=3).contains(&tally.in_stage.len()) {
            // The next stage's barrier waits for the last few hosts still in this one.
            parts.push(format!(
                "waiting for {} (running)",
                tally.in_stage.join(", ")
            ));
        }
        let Some((host, what, since)) = tally.running.first() else {
            return;
        };
        let mut longest = format!("{host}: {what} ({} s)", since.seconds(now));
        if tally.running.len() > 1 {
            longest.push_str(&format!(" +{} running", tally.running.len() - 1));
        }
        parts.push(longest);
    }
}

/// Up to three names, then how many more.
fn names<'a>(hosts: impl Iterator<Item = &'a str>) -> String {
    let mut hosts: Vec<&str> = hosts.collect();
    let more = hosts.len().saturating_sub(3);
    hosts.truncate(3);
    let mut text = hosts.join(", ");
    if more > 0 {
        text.push_str(&format!(" +{more}"));
    }
    text
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
                clock_scale: None,
            },
        ));
        board.observe(&at(
            9_000,
            RunEvent::Rebooting {
                host: "esx07".into(),
                clock_scale: None,
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
            "stage 2/3 firmware │ 0 done · 1 running · 2 rebooting · 0 waiting · 1 failed │ batch 2/5 │ waiting for esx05 (rebooting, 94 s) +1 rebooting"
        );
        assert!(board.line(100_000, Some(30)).ends_with('…'));
    }

    fn acting(host: &str, summary: &str, clock_scale: Option<u32>) -> RunEvent {
        RunEvent::ActionStarted {
            arguments: serde_json::Value::Null,
            builtin: "run".into(),
            file: "f".into(),
            host: host.into(),
            line: 1,
            seq: 1,
            stage: "s".into(),
            summary: summary.into(),
            clock_scale,
        }
    }

    #[test]
    fn a_reboot_on_a_scaled_clock_counts_the_seconds_its_lines_print() {
        let mut board = StatusBoard::new();
        let rebooting = RunEvent::Rebooting {
            host: "esx01".into(),
            clock_scale: Some(60),
        };
        board.observe(&at(1_000, rebooting));
        let line = board.line(3_000, None);
        assert!(line.contains("1 rebooting"), "{line}");
        assert!(
            line.ends_with("waiting for esx01 (rebooting, 120 s)"),
            "{line}"
        );
    }

    #[test]
    fn hosts_queued_for_the_budget_are_named_with_what_holds_it() {
        let mut board = StatusBoard::new();
        for (at_ms, host) in [(2_000, "esx04"), (1_000, "esx03")] {
            let wait = RunEvent::BudgetWait {
                before: "maintenance".into(),
                group: Some("esxi".into()),
                holders: vec!["esx01 rebooting".into(), "esx02 in maintenance".into()],
                host: host.into(),
                limit: 2,
            };
            board.observe(&at(at_ms, wait));
        }
        let line = board.line(5_000, None);
        assert_eq!(
            line,
            "starting │ 0 done · 0 running · 2 queued · 0 waiting · 0 failed │ queued for the budget: esx03, esx04 (2 of 2 esxi unavailable: esx01 rebooting, esx02 in maintenance)"
        );
    }

    #[test]
    fn the_longest_running_action_is_named_with_its_time() {
        let mut board = StatusBoard::new();
        board.observe(&at(1_000, acting("a", "mlxfwmanager update", None)));
        board.observe(&at(4_000, acting("b", "run echo", Some(10))));
        board.observe(&at(4_000, acting("c", "run echo", None)));
        let line = board.line(13_000, None);
        assert!(
            line.ends_with("│ 0 done · 3 running · 0 waiting · 0 failed │ a: mlxfwmanager update (12 s) +2 running"),
            "{line}"
        );
    }

    #[test]
    fn after_a_first_signal_it_counts_the_actions_the_stop_waits_for() {
        let mut board = StatusBoard::new();
        board.observe(&at(0, acting("a", "mlxconfig set", None)));
        board.observe(&at(0, acting("b", "reboot", None)));
        let rebooting = RunEvent::Rebooting {
            host: "b".into(),
            clock_scale: None,
        };
        board.observe(&at(0, rebooting));
        board.observe(&at(0, acting("c", "run", None)));
        let finished = RunEvent::HostFinished {
            error: None,
            host: "c".into(),
            reboot_pending: None,
            status: HostStatus::Cancelled,
        };
        board.observe(&at(0, finished));
        assert!(!board.line(0, None).contains("stopping"));
        board.stopping();
        let line = board.line(0, None);
        assert!(
            line.contains("· 1 stopped │ stopping: waiting for 2 actions │"),
            "{line}"
        );
    }

    #[test]
    fn the_last_hosts_in_a_stage_are_what_the_barrier_waits_for() {
        let mut board = StatusBoard::new();
        let left = RunEvent::StageFinished {
            host: "a".into(),
            index: 1,
            name: "s".into(),
        };
        board.observe(&at(0, left));
        board.observe(&at(0, acting("b", "run", None)));
        let line = board.line(2_000, None);
        assert!(
            line.ends_with("│ waiting for b (running) │ b: run (2 s)"),
            "{line}"
        );
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
