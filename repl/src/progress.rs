//! Live progress of a run: readable lines on a terminal, or one JSON event per line.

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::mpsc::Receiver;

use cairn_runtime::RunEvent;
use cairn_runtime::journal::HostStatus;

/// How events are shown.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Style {
    /// `--json`: each event as a JSON line.
    Json,
    /// Lines for people; per-action lines only for small runs.
    Text {
        /// Whether to print every action.
        actions: bool,
        /// Check mode: changes are only what would change.
        check: bool,
    },
}

/// Prints events until the run drops its sender.
pub(crate) fn show(events: &Receiver<RunEvent>, style: Style) {
    let stdout = std::io::stdout();
    let mut seen_stages = BTreeSet::new();
    for event in events {
        let _terminal = crate::terminal::hold();
        let mut out = stdout.lock();
        let written = match style {
            Style::Json => {
                serde_json::to_string(&event).map_or(Ok(()), |line| writeln!(out, "{line}"))
            }
            Style::Text { actions, check } => {
                text(&mut out, &event, actions, check, &mut seen_stages)
            }
        };
        if written.is_err() {
            return;
        }
    }
}

fn text(
    out: &mut impl Write,
    event: &RunEvent,
    actions: bool,
    check: bool,
    seen_stages: &mut BTreeSet<u64>,
) -> std::io::Result<()> {
    match event {
        RunEvent::StageStarted { index, name, .. } => {
            if seen_stages.insert(*index) {
                writeln!(out, "▸ stage {index}: {name}")?;
            }
        }
        RunEvent::BudgetWait {
            host,
            limit,
            holders,
            ..
        } => writeln!(
            out,
            "  {host} waits: {} of {limit} unavailable: {}",
            holders.len(),
            holders.join(", ")
        )?,
        RunEvent::BatchStarted {
            batch, hosts, of, ..
        } => writeln!(out, "  batch {batch}/{of}: {}", hosts.join(", "))?,
        RunEvent::ActionFinished {
            builtin,
            changed,
            elapsed_ms,
            host,
            ok,
            replayed,
            summary,
        } => {
            if *replayed {
                return Ok(());
            }
            if actions || !ok {
                let mark = if !ok {
                    "failed"
                } else if *changed && check {
                    "would"
                } else if *changed {
                    "changed"
                } else {
                    "ok"
                };
                let _ = builtin;
                writeln!(out, "  {host:<14} {mark:<8} {summary} ({elapsed_ms} ms)")?;
            }
        }
        RunEvent::Log { host, message } => {
            // Every line of a table logged at once keeps the host's column.
            for line in message.lines() {
                writeln!(out, "  {host:<14} │ {line}")?;
            }
        }
        RunEvent::Warning { host, message } => writeln!(out, "  {host:<14} warning: {message}")?,
        RunEvent::Rebooting { host } => writeln!(out, "  {host:<14} rebooting…")?,
        RunEvent::Rebooted { host, waited_ms } => {
            writeln!(
                out,
                "  {host:<14} back after {:.1} s with a new boot id",
                *waited_ms as f64 / 1000.0
            )?;
        }
        RunEvent::HostFinished {
            error,
            host,
            reboot_pending,
            status,
        } => match status {
            HostStatus::Done => {
                if let Some(reason) = reboot_pending {
                    writeln!(
                        out,
                        "  {host:<14} done, but a reboot is still pending ({reason})"
                    )?;
                }
            }
            HostStatus::Failed => {
                writeln!(
                    out,
                    "  {host:<14} FAILED: {}",
                    error.as_deref().unwrap_or("unknown error")
                )?;
            }
            HostStatus::Cancelled => writeln!(out, "  {host:<14} stopped")?,
        },
    }
    Ok(())
}
