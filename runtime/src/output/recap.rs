//! The recap every run and resume ends with, one line per host, as Ansible's PLAY RECAP
//! (`ok=N changed=N failed=N`) plus reboots and time; then the failed hosts' first errors.

use std::collections::HashMap;

use crate::journal::HostStatus;
use crate::{CONTROLLER, RecapLine, RunEvent, Stamped};

use super::{Palette, human_duration};

/// Per-host counts gathered from a run's events.
#[derive(Debug, Default)]
pub struct Recap {
    check: bool,
    first_errors: HashMap<String, String>,
    lines: HashMap<String, RecapLine>,
    order: Vec<String>,
    started_at: Option<u64>,
}

impl Recap {
    /// An empty recap.
    pub fn new() -> Self {
        Self::default()
    }

    fn line(&mut self, host: &str) -> &mut RecapLine {
        if !self.lines.contains_key(host) {
            self.order.push(host.to_owned());
        }
        self.lines
            .entry(host.to_owned())
            .or_insert_with(|| RecapLine {
                host: host.to_owned(),
                ..RecapLine::default()
            })
    }

    /// Counts one event.
    pub fn observe(&mut self, stamped: &Stamped) {
        let at = stamped.at;
        let started = *self.started_at.get_or_insert(at);
        let host = match &stamped.event {
            RunEvent::RunStarted { check, hosts, .. } => {
                self.check = *check;
                for host in hosts {
                    self.line(host);
                }
                return;
            }
            RunEvent::ActionFinished {
                changed,
                error,
                host,
                ok,
                replayed: false,
                ..
            } => {
                let line = self.line(host);
                if *ok {
                    line.ok += 1;
                } else {
                    line.failed += 1;
                }
                if *changed {
                    line.changed += 1;
                }
                if let Some(error) = error {
                    self.first_errors
                        .entry(host.clone())
                        .or_insert_with(|| error.clone());
                }
                host
            }
            RunEvent::Rebooted { host, .. } => {
                self.line(host).rebooted += 1;
                host
            }
            RunEvent::HostFinished {
                error,
                host,
                status,
                ..
            } => {
                let line = self.line(host);
                line.status = Some(*status);
                // A failed `expect` or an unreachable host fails with no failed action.
                if *status == HostStatus::Failed && line.failed == 0 {
                    line.failed = 1;
                }
                if let Some(error) = error {
                    self.first_errors
                        .entry(host.clone())
                        .or_insert_with(|| error.clone());
                }
                host
            }
            RunEvent::ActionStarted { host, .. }
            | RunEvent::StageStarted { host, .. }
            | RunEvent::StageFinished { host, .. }
            | RunEvent::Log { host, .. }
            | RunEvent::Rebooting { host, .. } => host,
            _ => return,
        };
        let line = self.line(host);
        line.elapsed_ms = line.elapsed_ms.max(at.saturating_sub(started));
    }

    /// Whether the run was a check.
    pub fn check(&self) -> bool {
        self.check
    }

    /// One line per host in inventory order; the controller only if it acted.
    pub fn lines(&self) -> Vec<RecapLine> {
        self.order
            .iter()
            .filter_map(|host| self.lines.get(host))
            .filter(|line| line.host != CONTROLLER || line.ok + line.failed > 0)
            .cloned()
            .collect()
    }

    /// The first error of each failed host, in recap order.
    pub fn failed_hosts(&self) -> Vec<(String, String)> {
        self.lines()
            .into_iter()
            .filter(|line| line.status == Some(HostStatus::Failed))
            .map(|line| {
                let error = self
                    .first_errors
                    .get(&line.host)
                    .cloned()
                    .unwrap_or_else(|| "failed".into());
                (line.host, error)
            })
            .collect()
    }

    /// The recap as lines: `HOST  ok=N changed=N failed=N rebooted=N  TIME`, then the failed
    /// hosts with their first error, cut to `width` columns (`None`: whole).
    pub fn render(&self, palette: Palette, width: Option<usize>) -> Vec<String> {
        let lines = self.lines();
        let column = lines.iter().map(|l| l.host.len()).max().unwrap_or(0).max(4);
        let mut out = vec![palette.bold(if self.check {
            "recap (check mode: nothing was changed):"
        } else {
            "recap:"
        })];
        for line in &lines {
            let counts = |n: u64, text: String| if n > 0 { text } else { palette.dim(&text) };
            let host = format!("{:<column$}", line.host);
            let host = match line.status {
                Some(HostStatus::Failed) => palette.failed(&host),
                Some(_) if line.changed > 0 => palette.changed(&host),
                Some(_) => palette.ok(&host),
                None => host,
            };
            out.push(format!(
                "  {host}  {} {} {} {}  {}{}",
                palette.ok(&format!("ok={:<4}", line.ok)),
                counts(line.changed, format!("changed={:<4}", line.changed)),
                if line.failed > 0 {
                    palette.failed(&format!("failed={:<3}", line.failed))
                } else {
                    palette.dim(&format!("failed={:<3}", line.failed))
                },
                counts(line.rebooted, format!("rebooted={:<2}", line.rebooted)),
                human_duration(line.elapsed_ms),
                match line.status {
                    Some(HostStatus::Cancelled) => "  stopped",
                    None => "  not finished",
                    _ => "",
                }
            ));
        }
        let failed = self.failed_hosts();
        if !failed.is_empty() {
            out.push(palette.bold("failed hosts, first error:"));
            // Hosts that failed the same way share one line.
            let failed = super::group_hosts(
                failed
                    .into_iter()
                    .map(|(host, error)| (error.lines().collect::<Vec<_>>().join(" / "), host)),
            );
            for (error, hosts) in failed {
                let who = format!("{:<column$}", super::describe_hosts(&hosts));
                let room = width.map(|w| w.saturating_sub(who.chars().count() + 4));
                let error = super::cut_to_width(&error, room);
                out.push(format!("  {}  {error}", palette.failed(&who)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(at: u64, event: RunEvent) -> Stamped {
        Stamped { at, event }
    }

    fn action(host: &str, ok: bool, changed: bool) -> RunEvent {
        RunEvent::ActionFinished {
            arguments: serde_json::Value::Null,
            builtin: "run".into(),
            changed,
            elapsed_ms: 1,
            error: (!ok).then(|| "boom".to_owned()),
            file: "book.rhai".into(),
            host: host.into(),
            line: 1,
            ok,
            replayed: false,
            result: serde_json::Value::Null,
            seq: 1,
            stage: "s".into(),
            started_at: 0,
            summary: "run x".into(),
        }
    }

    #[test]
    fn counts_per_host_and_the_first_error() {
        let mut recap = Recap::new();
        let events = [
            RunEvent::RunStarted {
                check: false,
                hosts: vec!["b".into(), "a".into()],
                params: Default::default(),
                resume: false,
                run_id: "r".into(),
                runbook: "book.rhai".into(),
                schema: 1,
                stages: vec![],
            },
            action("a", true, true),
            action("a", true, false),
            RunEvent::Rebooted {
                host: "a".into(),
                waited_ms: 5,
            },
            action("b", false, false),
            RunEvent::HostFinished {
                error: Some("later".into()),
                host: "b".into(),
                reboot_pending: None,
                status: HostStatus::Failed,
            },
        ];
        for (at, event) in events.into_iter().enumerate() {
            recap.observe(&stamped(1000 + at as u64 * 1000, event));
        }
        let lines = recap.lines();
        assert_eq!(lines[0].host, "b");
        assert_eq!(
            (lines[1].ok, lines[1].changed, lines[1].rebooted),
            (2, 1, 1)
        );
        assert_eq!(lines[1].elapsed_ms, 3000);
        assert_eq!(lines[0].failed, 1);
        assert_eq!(recap.failed_hosts(), [("b".to_owned(), "boom".to_owned())]);
        let text = recap.render(Palette::new(false), None).join("\n");
        assert!(
            text.contains("a     ok=2    changed=1    failed=0   rebooted=1   3.0 s"),
            "{text}"
        );
    }
}
