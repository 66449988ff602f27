//! `cairn run --debug-on-failure`: a failed action waits for the operator at a prompt on the
//! controller's terminal, bound to that host. One prompt at a time: failures of other hosts
//! queue behind it, while hosts that did not fail keep running.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::thread::JoinHandle;

use cairn_runtime::{Debugger, Pause, Resume};

use super::Repl;
use super::debug::show_pause;
use super::sessions::Sessions;

/// The thread that answers failed actions of a run.
pub(crate) struct FailurePrompt {
    thread: JoinHandle<()>,
}

impl FailurePrompt {
    /// Starts the prompt; the run gets the returned debugger. Refuses when standard input is
    /// not a terminal: nobody could answer, and the run would hang.
    pub(crate) fn start(state: &Path) -> miette::Result<(Arc<Debugger>, Self)> {
        if !std::io::stdin().is_terminal() {
            return Err(miette::miette!(
                code = "cairn::cli::debug_needs_terminal",
                help = "run it from a terminal, or leave --debug-on-failure out and `cairn resume` after fixing the host",
                "--debug-on-failure needs a terminal to ask on, and standard input is not one"
            ));
        }
        let (sender, pauses) = channel();
        let state = state.to_owned();
        let thread = std::thread::Builder::new()
            .name("debug prompt".into())
            .spawn(move || answer_all(&state, &pauses))
            .map_err(|e| miette::miette!("cannot start the debug prompt: {e}"))?;
        Ok((Arc::new(Debugger::on_failure(sender)), Self { thread }))
    }

    /// Waits until the run is over (the debugger dropped) and every failure was answered.
    pub(crate) fn finish(self) {
        let _ = self.thread.join();
    }
}

/// Prompts for each failure in turn, holding the terminal so progress waits meanwhile.
fn answer_all(state: &Path, pauses: &Receiver<Pause>) {
    for pause in pauses {
        let _terminal = crate::terminal::hold();
        prompt(state, pause);
    }
}

fn prompt(state: &Path, pause: Pause) {
    let sessions = Sessions::bare(state);
    let opened = sessions.open_on(pause.host.clone(), pause.transport.clone());
    let (session, journal) = match opened {
        Ok(opened) => opened,
        Err(error) => {
            eprintln!("{error:?}");
            pause.resume(Resume::Abort);
            return;
        }
    };
    println!(
        "── debug: an action failed on `{}`; the other hosts keep running ──",
        pause.host.name
    );
    show_pause(&pause, None);
    let mut repl = match Repl::new(session, journal, sessions) {
        Ok(repl) => repl,
        Err(error) => {
            eprintln!("{error:?}");
            pause.resume(Resume::Abort);
            return;
        }
    };
    repl.failed = Some(pause);
    if let Err(error) = repl.run_loop() {
        eprintln!("{error:?}");
    }
    repl.quit_failed();
    repl.save_history();
}
