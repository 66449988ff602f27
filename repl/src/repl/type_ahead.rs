//! Keeps what is typed while a command runs when Ctrl-C stops it: the terminal's `NOFLSH`
//! flag (termios(3): "disable flushing the input and output queues when generating
//! signals"), so the SIGINT that stops the command does not discard the type-ahead, and the
//! next prompt starts with it.

use nix::sys::termios::{LocalFlags, SetArg, Termios, tcgetattr, tcsetattr};

/// Sets `NOFLSH` on standard input until dropped (nothing when it is not a terminal).
pub(crate) struct KeepTypeAhead {
    saved: Option<Termios>,
}

impl KeepTypeAhead {
    pub(crate) fn new() -> Self {
        let stdin = std::io::stdin();
        let Ok(saved) = tcgetattr(&stdin) else {
            return Self { saved: None };
        };
        let mut mode = saved.clone();
        mode.local_flags |= LocalFlags::NOFLSH;
        let set = tcsetattr(&stdin, SetArg::TCSANOW, &mode);
        Self {
            saved: set.is_ok().then_some(saved),
        }
    }
}

impl Drop for KeepTypeAhead {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin(), SetArg::TCSANOW, saved);
        }
    }
}
