//! Events as lines for people: one line per action, log line, reboot and warning, at the
//! chosen verbosity, cut to the terminal's width (never when piped), with the mark coloured.
//! Hosts stopped by Ctrl-C or `--max-fail-percent` are printed once, as a range, at the end.

use std::collections::{BTreeSet, HashMap};

use crate::RunEvent;
use crate::journal::HostStatus;

use super::{Palette, Verbosity, cut_to_width, describe_hosts};

/// Turns events into lines.
#[derive(Debug)]
pub struct LineRenderer {
    check: bool,
    /// `-v`: the output of each running action's commands, shown if it fails.
    outputs: HashMap<(String, u64), Vec<String>>,
    palette: Palette,
    seen_stages: BTreeSet<u64>,
    stopped: Vec<String>,
    verbosity: Verbosity,
    width: Option<usize>,
}

impl LineRenderer {
    /// Lines at `verbosity`, coloured by `palette`, cut to `width` columns (`None`: whole).
    pub fn new(verbosity: Verbosity, palette: Palette, width: Option<usize>) -> Self {
        Self {
            check: false,
            outputs: HashMap::new(),
            palette,
            seen_stages: BTreeSet::new(),
            stopped: Vec::new(),
            verbosity,
            width,
        }
    }

    /// The terminal was resized.
    pub fn set_width(&mut self, width: Option<usize>) {
        self.width = width;
    }

    /// A line for `host`: `  HOST  MARK  TEXT`, cut, with the mark painted by `paint`.
    fn host_line(
        &self,
        host: &str,
        mark: &str,
        text: &str,
        paint: fn(Palette, &str) -> String,
    ) -> String {
        let head = format!("  {host:<14} ");
        let mark_cell = if mark.is_empty() {
            String::new()
        } else {
            format!("{mark:<8} ")
        };
        let plain = format!("{head}{mark_cell}{text}");
        let cut = cut_to_width(&plain, self.width);
        if !self.palette.is_on() || mark.is_empty() {
            return cut.into_owned();
        }
        // Paint the mark only where the cut left it whole.
        match cut.get(head.len()..head.len() + mark.len()) {
            Some(shown) if shown == mark => format!(
                "{head}{}{}",
                paint(self.palette, mark),
                &cut[head.len() + mark.len()..]
            ),
            _ => cut.into_owned(),
        }
    }

    fn dim_line(&self, host: &str, text: &str) -> String {
        let line = format!("  {host:<14}   {text}");
        self.palette.dim(&cut_to_width(&line, self.width))
    }

    /// Appends the lines for `event` to `out`: here an action's and a host's ending, the rest
    /// in [`Self::progress`]; one arm per event kind, read side by side with docs/events.md.
    pub fn render(&mut self, event: &RunEvent, out: &mut Vec<String>) {
        let quiet = self.verbosity == Verbosity::Quiet;
        match event {
            RunEvent::RunStarted { check, .. } => self.check = *check,
            RunEvent::Command {
                argv,
                code,
                host,
                seq,
                stderr,
                stdout,
                ..
            } => {
                if self.verbosity < Verbosity::Verbose {
                    return;
                }
                let command = shlex::try_join(argv.iter().map(String::as_str))
                    .unwrap_or_else(|_| argv.join(" "));
                let exit = if *code == 0 {
                    String::new()
                } else {
                    format!("  (exit {code})")
                };
                out.push(self.dim_line(host, &format!("$ {command}{exit}")));
                let output: Vec<String> = stdout
                    .lines()
                    .chain(stderr.lines())
                    .map(|line| self.dim_line(host, &format!("│ {line}")))
                    .collect();
                if self.verbosity >= Verbosity::All {
                    out.extend(output);
                } else {
                    self.outputs
                        .entry((host.clone(), *seq))
                        .or_default()
                        .extend(output);
                }
            }
            RunEvent::ActionStarted { .. } => {}
            RunEvent::ActionFinished {
                changed,
                elapsed_ms,
                error,
                host,
                ok,
                replayed,
                seq,
                summary,
                ..
            } => {
                let output = self.outputs.remove(&(host.clone(), *seq));
                if *replayed || (quiet && *ok && !*changed) {
                    return;
                }
                let (mark, paint): (&str, fn(Palette, &str) -> String) = if !ok {
                    ("failed", Palette::failed)
                } else if *changed && self.check {
                    ("would", Palette::changed)
                } else if *changed {
                    ("changed", Palette::changed)
                } else {
                    ("ok", Palette::ok)
                };
                out.push(self.host_line(
                    host,
                    mark,
                    &format!("{summary} ({elapsed_ms} ms)"),
                    paint,
                ));
                if !ok {
                    if self.verbosity >= Verbosity::Verbose
                        && let Some(error) = error
                    {
                        for line in error.lines() {
                            out.push(self.dim_line(host, &format!("! {line}")));
                        }
                    }
                    out.extend(output.unwrap_or_default());
                }
            }
            RunEvent::HostFinished {
                error,
                host,
                reboot_pending,
                status,
            } => self.host_finished(
                host,
                *status,
                error.as_deref(),
                reboot_pending.as_deref(),
                out,
            ),
            _ => self.progress(event, out),
        }
    }

    /// A host's last line: a reboot still pending, its failure; a stopped host is held back
    /// for [`Self::finish`].
    fn host_finished(
        &mut self,
        host: &str,
        status: HostStatus,
        error: Option<&str>,
        reboot_pending: Option<&str>,
        out: &mut Vec<String>,
    ) {
        match status {
            HostStatus::Done => {
                if let Some(reason) = reboot_pending {
                    let text = format!("done, but a reboot is still pending ({reason})");
                    out.push(self.host_line(host, "", &text, Palette::ok));
                }
            }
            HostStatus::Failed => {
                let text = format!("FAILED: {}", error.unwrap_or("unknown error"));
                let line = self.host_line(host, "", &text, Palette::ok);
                out.push(if self.palette.is_on() {
                    self.palette.failed(&line)
                } else {
                    line
                });
            }
            HostStatus::Cancelled => self.stopped.push(host.to_owned()),
        }
    }

    /// The lines of a run's progress: stage and batch headings, logs, warnings, reboots and
    /// waits.
    fn progress(&mut self, event: &RunEvent, out: &mut Vec<String>) {
        let quiet = self.verbosity == Verbosity::Quiet;
        match event {
            // Each stage's heading once, though every host enters it.
            RunEvent::StageStarted { index, name, .. }
                if self.seen_stages.insert(*index) && !quiet =>
            {
                let line = format!("▸ stage {index}: {name}");
                out.push(self.palette.bold(&cut_to_width(&line, self.width)));
            }
            RunEvent::Log { host, message } if !quiet => {
                // Every line of a table logged at once keeps the host's column.
                for line in message.lines() {
                    out.push(self.host_line(host, "", &format!("│ {line}"), Palette::ok));
                }
            }
            RunEvent::Warning { host, message } => {
                out.push(self.host_line(host, "warning:", message, Palette::changed));
            }
            RunEvent::Rebooting { host, .. } if !quiet => {
                out.push(self.host_line(host, "", "rebooting…", Palette::ok));
            }
            RunEvent::Rebooted { host, waited_ms } if !quiet => {
                let text = format!(
                    "back after {:.1} s with a new boot id",
                    *waited_ms as f64 / 1000.0
                );
                out.push(self.host_line(host, "", &text, Palette::ok));
            }
            RunEvent::BudgetWait {
                host,
                group,
                limit,
                holders,
                ..
            } if !quiet => {
                let text = format!(
                    "waits: {}",
                    crate::run::event::budget_wait_text(group.as_deref(), *limit, holders)
                );
                out.push(self.host_line(host, "", &text, Palette::ok));
            }
            RunEvent::Waiting { host, reason } if self.verbosity >= Verbosity::Verbose => {
                out.push(self.host_line(host, "", &format!("waits: {reason}"), Palette::ok));
            }
            RunEvent::BatchStarted {
                batch,
                batches,
                hosts,
                stage,
            } if !quiet => {
                let line = format!(
                    "▸ stage {stage}: batch {batch}/{batches}: {}",
                    describe_hosts(hosts)
                );
                out.push(self.palette.bold(&cut_to_width(&line, self.width)));
            }
            _ => {}
        }
    }

    /// The lines held back until the end: the stopped hosts, once, as a range.
    pub fn finish(&mut self, out: &mut Vec<String>) {
        if !self.stopped.is_empty() {
            let hosts = std::mem::take(&mut self.stopped);
            let line = format!("  stopped before they finished: {}", describe_hosts(&hosts));
            out.push(cut_to_width(&line, self.width).into_owned());
        }
    }
}
