//! `cairn resume` on a terminal: asks about each action whose outcome is unknown, as
//! docs/guide.md describes, instead of stopping for `--assume`.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::sync::Arc;

use cairn_runtime::{AskUndecided, Decision, Undecided};

/// The prompt, when standard input and standard error are a terminal; `None` otherwise, so
/// that a script gets the error naming the `--assume` to pass.
pub(crate) fn on_terminal() -> Option<AskUndecided> {
    (std::io::stdin().is_terminal() && std::io::stderr().is_terminal())
        .then(|| AskUndecided(Arc::new(ask)))
}

fn ask(action: &Undecided) -> Decision {
    // Progress lines wait while the operator answers.
    let _terminal = crate::terminal::hold();
    let mut stderr = std::io::stderr();
    let stdin = std::io::stdin();
    loop {
        let _ = write!(
            stderr,
            "{} #{} {} ({}): did it run? [done/redo/abort] ",
            action.host, action.seq, action.summary, action.site
        );
        let _ = stderr.flush();
        let mut line = String::new();
        // End of input or an unreadable terminal: run nothing.
        if stdin.lock().read_line(&mut line).unwrap_or(0) == 0 {
            let _ = writeln!(stderr);
            return Decision::Abort;
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "done" | "d" => return Decision::Done,
            "redo" | "r" => return Decision::Redo,
            "abort" | "a" => return Decision::Abort,
            other => {
                let _ = writeln!(
                    stderr,
                    "`{other}`: answer `done` if it ran (recorded as done), `redo` to run it again, or `abort`"
                );
            }
        }
    }
}
