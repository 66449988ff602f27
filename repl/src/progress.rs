//! Wires a run's events to stdout: on a terminal, lines above a live status area; piped, plain
//! uncut lines; with `--json`, one event per line. What the lines and the status area say is
//! `cairn_runtime::output`'s.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use cairn_runtime::Stamped;
use cairn_runtime::output::{ColorChoice, LineRenderer, Palette, Recap, StatusBoard, Verbosity};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How events are shown.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Display {
    /// `--color`.
    pub(crate) color: ColorChoice,
    /// `--json`: each event as a JSON line.
    pub(crate) json: bool,
    /// Whether the status area may be drawn (not while a debug prompt may open).
    pub(crate) status_area: bool,
    /// `-q`, `-v`, `-vv`.
    pub(crate) verbosity: Verbosity,
}

/// What the end of the run prints with: the recap, and how to colour and cut.
pub(crate) struct Shown {
    pub(crate) palette: Palette,
    pub(crate) recap: Recap,
    pub(crate) width: Option<usize>,
}

/// The terminal's columns when stdout is one.
pub(crate) fn terminal_width() -> Option<usize> {
    let term = console::Term::stdout();
    if !term.is_term() {
        return None;
    }
    term.size_checked()
        .map(|(_, columns)| usize::from(columns))
        .filter(|&columns| columns > 0)
}

/// Shows events until the run drops its sender; returns the recap. Once `stopping` is set (a
/// first signal), the status area says what the stop waits for.
pub(crate) fn show(events: &Receiver<Stamped>, display: Display, stopping: &AtomicBool) -> Shown {
    let terminal = std::io::stdout().is_terminal();
    let palette = Palette::new(
        !display.json
            && display
                .color
                .enabled(terminal, std::env::var_os("NO_COLOR").as_deref()),
    );
    let mut width = terminal_width();
    let mut lines = LineRenderer::new(display.verbosity, palette, width);
    let mut recap = Recap::new();
    let mut board = StatusBoard::new();
    let bar = (terminal && display.status_area && !display.json).then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout_with_hz(10));
        if let Ok(style) = ProgressStyle::with_template("{msg}") {
            bar.set_style(style);
        }
        bar
    });
    let stdout = std::io::stdout();
    let mut broken = false;
    let mut batch = Vec::new();
    let mut text = Vec::new();
    loop {
        match events.recv_timeout(Duration::from_millis(250)) {
            Ok(event) => batch.push(event),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        // Whatever else is waiting goes out in one write, under one redraw of the status area.
        while batch.len() < 1024 {
            match events.try_recv() {
                Ok(event) => batch.push(event),
                Err(_) => break,
            }
        }
        if bar.is_some() {
            let now = terminal_width();
            if now != width {
                width = now;
                lines.set_width(width);
            }
        }
        for stamped in batch.drain(..) {
            recap.observe(&stamped);
            if display.json {
                if let Ok(line) = serde_json::to_string(&stamped) {
                    text.push(line);
                }
            } else {
                board.observe(&stamped);
                lines.render(&stamped.event, &mut text);
            }
        }
        if !text.is_empty() && !broken {
            broken = write(&stdout, &bar, &text).is_err();
        }
        text.clear();
        if let Some(bar) = &bar {
            if stopping.load(Ordering::SeqCst) {
                board.stopping();
            }
            let now = cairn_runtime::journal::now_millis();
            // One column short: a line that fills the terminal would wrap.
            bar.set_message(board.line(now, width.map(|w| w.saturating_sub(1))));
        }
    }
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    lines.finish(&mut text);
    if !broken {
        let _ = write(&stdout, &None, &text);
    }
    Shown {
        palette,
        recap,
        width,
    }
}

fn write(
    stdout: &std::io::Stdout,
    bar: &Option<ProgressBar>,
    text: &[String],
) -> std::io::Result<()> {
    let _terminal = crate::terminal::hold();
    let put = || {
        let mut out = stdout.lock();
        for line in text {
            writeln!(out, "{line}")?;
        }
        out.flush()
    };
    match bar {
        Some(bar) => bar.suspend(put),
        None => put(),
    }
}
