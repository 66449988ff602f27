//! A journal as a timeline of lines, for `cairn journal` and the prompt's `:journal`.

use std::path::Path;

use cairn_runtime::journal::{HostJournal, JournalEvent};

/// One journal record as a line of the timeline; `None` for a record the timeline leaves out.
pub(crate) fn describe(event: &JournalEvent) -> Option<String> {
    Some(match event {
        JournalEvent::Header(h) => format!("run {} of {} on {}", h.run_id, h.runbook, h.host),
        JournalEvent::Resume(_) => "resumed".into(),
        JournalEvent::Stage(s) if s.member => format!("stage {} `{}`", s.index, s.name),
        JournalEvent::Stage(s) => format!("stage {} `{}` (not in `{}`)", s.index, s.name, s.group),
        JournalEvent::Wait(w) => format!(
            "  waited before {}: {} of {} unavailable: {}",
            w.before,
            w.holders.len(),
            w.limit,
            w.holders.join(", ")
        ),
        JournalEvent::Lease(l) => format!(
            "took the host over from {}, whose process had ended",
            l.taken_over_from.describe()
        ),
        JournalEvent::Batch(b) => format!("  batch {}/{}: {}", b.batch, b.of, b.hosts.join(", ")),
        JournalEvent::Intent(i) => format!(
            "  #{} {} {} ({}:{})",
            i.seq, i.builtin, i.args, i.file, i.line
        ),
        JournalEvent::Progress(p) => format!("  #{} … {}", p.seq, p.data),
        JournalEvent::Outcome(o) if o.ok => format!(
            "  #{} {}{}{} in {} ms",
            o.seq,
            if o.changed { "changed" } else { "ok" },
            if o.reboot_required {
                ", reboot required"
            } else {
                ""
            },
            o.how
                .as_deref()
                .map(|how| format!(" ({how})"))
                .unwrap_or_default(),
            o.elapsed_ms
        ),
        JournalEvent::Outcome(o) => {
            format!("  #{} failed: {}", o.seq, o.error.as_deref().unwrap_or(""))
        }
        JournalEvent::Decision(d) => format!("  #{} operator: assume {:?}", d.seq, d.assume),
        JournalEvent::Debug(d) => format!(
            "  #{} debugger: {:?}{}",
            d.seq,
            d.choice,
            d.value
                .as_ref()
                .map(|value| format!(" with {value}"))
                .unwrap_or_default()
        ),
        JournalEvent::Rewind(r) => format!("rewound to action {}", r.seq),
        JournalEvent::Log(l) => format!("  │ {}", l.message),
        JournalEvent::HostEnd(e) => format!(
            "end: {:?}{}",
            e.status,
            e.error
                .as_deref()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ),
    })
}

/// Prints the timeline of the journal at `path` (the REPL's `:journal`).
pub(crate) fn print_timeline(path: &Path) {
    match HostJournal::load(path, false) {
        Ok(journal) => {
            for (line, event) in &journal.events {
                if let Some(text) = describe(event) {
                    say!("{line:>5}  {text}");
                }
            }
        }
        Err(error) => eprintln!("{:?}", miette::Report::new(error)),
    }
}
