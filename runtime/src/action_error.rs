//! Why an action, and so its host, failed.

use crate::journal::{JournalError, RecordedAction};
use crate::{Cancelled, TransportError};

/// A call site in a runbook or module.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CallSite {
    /// 1-based column.
    pub column: u32,
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The calls that led here, innermost first; kept only under the debugger
    /// (`call_chain.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub callers: Vec<crate::Caller>,
}

/// A tool's output that does not parse, as the builtin that ran the tool saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputParse {
    /// What ran (`ibstat`, `esxcli network nic list`).
    pub command: String,
    /// The parser's error in words (`` `ibstat` output does not parse: expected ... ``).
    pub error: String,
    /// What the parser expected at the span, for the label.
    pub expected: String,
    /// The 1-based line of the output the parse stopped on.
    pub line: usize,
    /// That line, as printed.
    pub line_text: String,
    /// The output as the report shows it (long lines folded), and its name (`ibstat output`).
    pub output: String,
    /// The name the report gives the output.
    pub output_name: String,
    /// Where in `output` the parse stopped.
    pub span: miette::SourceSpan,
}

/// Why a builtin failed. A builtin raises it as the rhai error's value
/// ([`ActionError::raise`]); the failure report finds it there and turns it into the host's
/// failure, with the runbook span, this variant's help and, for some, a related section.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ActionError {
    /// The run was stopped while this action waited.
    #[error(transparent)]
    #[diagnostic(code(cairn::runtime::cancelled))]
    Cancelled(#[from] Cancelled),
    /// A command ran and exited non-zero.
    #[error("`{command}` exited with {code}{}", stderr_tail(.stderr))]
    #[diagnostic(code(cairn::action::command_failed))]
    CommandFailed {
        /// The exit status.
        code: i64,
        /// The command line.
        command: String,
        /// Its standard error.
        stderr: String,
    },
    /// `run(argv)` exited non-zero: the one failure whose help is `run`'s `allow_fail`.
    #[error("`{command}` exited with {code}{}", stderr_tail(.stderr))]
    #[diagnostic(
        code(cairn::action::run_exited),
        help("pass #{{ allow_fail: true }} to `run` to accept a non-zero exit")
    )]
    RunExited {
        /// The exit status.
        code: i64,
        /// The command line.
        command: String,
        /// Its standard error.
        stderr: String,
    },
    /// The runbook now calls something else where the journal recorded an action.
    #[error(
        "the runbook changed: action {seq} is now `{now}` at {}:{}, but the journal recorded `{}` at {}:{}",
        .site.file, .site.line, .then.intent.builtin, .then.intent.file, .then.intent.line
    )]
    #[diagnostic(code(cairn::runtime::diverged))]
    Diverged {
        /// The journal file.
        journal: String,
        /// What the runbook calls now.
        now: String,
        /// The arguments it passes now.
        now_args: serde_json::Value,
        /// The action number.
        seq: u64,
        /// Where the runbook calls it now.
        site: CallSite,
        /// What the journal recorded there.
        then: Box<RecordedAction>,
    },
    /// `expect(cond, message)` with a false condition.
    #[error("expectation failed: {0}")]
    #[diagnostic(code(cairn::action::expectation))]
    Expectation(String),
    /// A builtin's own error, in words.
    #[error("{0}")]
    #[diagnostic(code(cairn::action::failed))]
    Failed(String),
    /// An argument a builtin cannot take (`MTU 0`, a device name with a space): the call is
    /// wrong, though the runbook parses and the checker cannot see the value.
    #[error("{0}")]
    #[diagnostic(code(cairn::action::argument))]
    Argument(String),
    /// A program a builtin needs is not on the host.
    #[error("`{program}` is not installed on `{host}`: {install}")]
    #[diagnostic(code(cairn::action::not_installed))]
    NotInstalled {
        /// The program.
        program: String,
        /// The host.
        host: String,
        /// How to install it, in the vendor's words.
        install: String,
    },
    /// A builtin named a host (a test's peer, a management host) the run does not have.
    #[error("`{0}` is not a host of this run")]
    #[diagnostic(code(cairn::action::not_a_host))]
    NotAHost(String),
    /// A tool ran and said it failed, in words its parser read (`-E- ...` lines, an
    /// `esxcli` error block): the command and what it said.
    #[error("`{command}` {said}")]
    #[diagnostic(code(cairn::action::tool_said))]
    ToolSaid {
        /// What ran.
        command: String,
        /// What went wrong, as the tool put it (`failed: [NotFound] ...`).
        said: String,
    },
    /// A builtin's own error, with what to do about it (shown as the diagnostic's help).
    #[error("{message}")]
    #[diagnostic(code(cairn::action::hinted))]
    Hinted {
        /// What went wrong.
        message: String,
        /// What to do about it.
        #[help]
        help: String,
    },
    /// A tool's output that its parser could not read: the failure report shows the output
    /// with the parser's span, typed, rather than finding it again in the message.
    #[error(
        "`{}` output does not parse at line {} (`{}`): {}",
        .0.command, .0.line, .0.line_text, .0.error
    )]
    #[diagnostic(code(cairn::action::output_parse))]
    OutputParse(Box<OutputParse>),
    /// The journal could not be written: the action was not run.
    #[error(transparent)]
    #[diagnostic(code(cairn::action::journal))]
    Journal(#[from] JournalError),
    /// The action's outcome is unknown and only the operator can tell.
    #[error(
        "`{builtin}` (action {seq}, {}:{}) started but its outcome was not recorded; run `cairn resume --assume done` if it happened or `--assume redo` to run it again",
        .site.file, .site.line
    )]
    #[diagnostic(code(cairn::runtime::needs_decision))]
    NeedsDecision {
        /// The builtin.
        builtin: String,
        /// The action number.
        seq: u64,
        /// Where the runbook calls it.
        site: CallSite,
    },
    /// The runbook itself is wrong (an unknown option, a call no builtin takes): no host is to
    /// blame, and the run exits 2 as `cairn check` would.
    #[error("{0}")]
    #[diagnostic(code(cairn::runtime::runbook))]
    Runbook(String),
    /// An action outside any `stage` block.
    #[error("`{0}` touches the host and must be called inside a `stage` block")]
    #[diagnostic(
        code(cairn::action::outside_stage),
        help("wrap the call in `stage \"name\" on GROUP {{ ... }}`")
    )]
    OutsideStage(String),
    /// The host did not come back from a reboot in time.
    #[error("`{host}` did not come back with a new boot id within {seconds} s of the reboot")]
    #[diagnostic(
        code(cairn::action::reboot_timeout),
        help("raise --reboot-timeout, or check the host's console")
    )]
    RebootTimeout {
        /// The host.
        host: String,
        /// The limit.
        seconds: u64,
    },
    /// A change staged for the next boot was not there after the reboot: the host fails
    /// instead of staging it again and rebooting in a loop.
    /// The help names the resume that stages it again: a plain resume runs only the check
    /// again (the reboot-loop breaker never reboots twice on its own), which a change that
    /// is not staged again fails again.
    #[error("{what} is still {seen} after the reboot at {at}: {why}")]
    #[diagnostic(
        code(cairn::action::not_applied),
        help(
            "another reboot would not apply it either: find out why the host did not take it \
             (the reason says where to look: the device, the image, the kernel), fix it, then \
             {restage}; a plain `cairn resume` only checks it again, for a change applied by hand"
        )
    )]
    NotApplied {
        /// What was staged (`mlxconfig LINK_TYPE_P1`).
        what: String,
        /// What the host shows now (`ETH(2)`).
        seen: String,
        /// When the reboot ended, on the host's clock (`10:42 UTC`).
        at: String,
        /// Whose doing it is (`the firmware did not apply it`).
        why: String,
        /// The resume that stages it again (``run `cairn resume --from-stage 1` (stage `tune`
        /// staged it) to stage it again and reboot``), set by [`ActionError::staged_in`].
        restage: String,
    },
    /// The host's fence refused this controller: another holds the host at a higher epoch (it
    /// took the lease over). The command did not run; this host stops here, never retried.
    #[error("{host} refused the command: {said}")]
    #[diagnostic(
        code(cairn::fence::refused),
        help(
            "another run took this host's lease over, so this run must not act on it; see which with `cairn runs`, and let that run finish"
        )
    )]
    Fenced {
        /// The host.
        host: String,
        /// What the fence said.
        said: String,
    },
    /// The host's fence cannot keep its state (a folder it cannot write, one in memory): the
    /// command did not run.
    #[error("{host}'s fence did not run the command: {said}")]
    #[diagnostic(
        code(cairn::fence::broken),
        help("the fence folder is set in the inventory (docs/fleet.md, \"Fencing on the host\")")
    )]
    FenceBroken {
        /// The host.
        host: String,
        /// What the fence said.
        said: String,
    },
    /// The host could not be reached, or a command's fate is unknown.
    #[error(transparent)]
    #[diagnostic(code(cairn::action::transport))]
    Transport(#[from] TransportError),
    /// Taking another host's transport would wait forever: that host's own action is waiting for
    /// this one's (or the host is its own peer).
    #[error("{what}")]
    #[diagnostic(code(cairn::action::would_deadlock))]
    WouldDeadlock {
        /// Who waits for whom.
        what: String,
        /// How to write the runbook so it does not.
        #[help]
        help: String,
    },
    /// An action's result does not read as the builtin's type: a journal written by another
    /// cairn, or edited. Refused, naming the record, rather than read as an empty default.
    #[error(
        "the result of `{builtin}` (action {seq}) does not read as {expected}: {problem} ({})",
        .line.map_or_else(|| format!("journal {journal}"), |line| format!("journal {journal} line {line}"))
    )]
    #[diagnostic(
        code(cairn::action::journal_shape),
        help(
            "the journal was written by another cairn or edited; `cairn resume --from-stage` runs the stage again"
        )
    )]
    JournalShape {
        /// The builtin.
        builtin: String,
        /// The action number.
        seq: u64,
        /// What the builtin reads its result as (`an array`, `ibstat's devices`).
        expected: String,
        /// Why it does not read.
        problem: String,
        /// The journal file.
        journal: String,
        /// The record's 1-based line in it, when the result was replayed from it.
        line: Option<usize>,
    },
    /// A journaled result held a secret this resume cannot put back (not given again, or the
    /// record edited): replaying the marker would hand the runbook what it never read.
    #[error(
        "the result of `{builtin}` (action {seq}) held a secret that cannot be put back: {problem} (journal {journal})"
    )]
    #[diagnostic(
        code(cairn::action::secret_not_restored),
        help(
            "resume with the secrets the run was given (`--vault FILE`, `--param NAME=...`); `cairn resume --from-stage` runs the stage again"
        )
    )]
    SecretNotRestored {
        /// The builtin.
        builtin: String,
        /// The action number.
        seq: u64,
        /// Which secret, or what does not fit.
        problem: String,
        /// The journal file.
        journal: String,
    },
    /// Divergence checking reached the first action the journal has no outcome for.
    #[error("replay reached the live point")]
    #[diagnostic(code(cairn::action::reached_live_point))]
    ReachedLivePoint,
}

fn stderr_tail(stderr: &str) -> String {
    let tail: Vec<&str> = stderr
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .collect();
    if tail.is_empty() {
        String::new()
    } else {
        let lines: Vec<&str> = tail.into_iter().rev().collect();
        format!(": {}", lines.join(" / "))
    }
}

impl ActionError {
    /// Whether the action may have run without its outcome being recorded, so the journal must
    /// keep its intent open for the next resume to reconcile.
    pub fn outcome_unknown(&self) -> bool {
        matches!(
            self,
            Self::Cancelled(_)
                | Self::Journal(_)
                | Self::Transport(
                    TransportError::Interrupted { .. }
                        | TransportError::HostState { .. }
                        | TransportError::Stopped { .. }
                        | TransportError::TimedOut { .. }
                )
        )
    }

    /// A change the host did not apply, said with the resume that stages it again: its stage
    /// run again from the start (`--from-stage`, numbered as the progress counts stages).
    pub(crate) fn staged_in(self, stage: &(u64, String)) -> Self {
        match self {
            Self::NotApplied {
                what,
                seen,
                at,
                why,
                ..
            } => Self::NotApplied {
                what,
                seen,
                at,
                why,
                restage: format!(
                    "run `cairn resume --from-stage {}` (stage `{}` staged it) to stage it again and reboot",
                    stage.0, stage.1
                ),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use miette::Diagnostic;

    use super::ActionError;

    /// `allow_fail` is `run`'s option: a vendor builtin's failed command has no help about it.
    #[test]
    fn only_runs_exit_has_the_allow_fail_help() {
        let failed = |code| ActionError::CommandFailed {
            code,
            command: "./mlnxofedinstall".into(),
            stderr: String::new(),
        };
        assert!(failed(1).help().is_none());
        let exited = ActionError::RunExited {
            code: 1,
            command: "false".into(),
            stderr: String::new(),
        };
        assert_eq!(
            exited.help().map(|h| h.to_string()).as_deref(),
            Some("pass #{ allow_fail: true } to `run` to accept a non-zero exit")
        );
        assert_eq!(
            exited.to_string(),
            failed(1).to_string().replace("./mlnxofedinstall", "false")
        );
        assert_eq!(
            exited.code().map(|c| c.to_string()).as_deref(),
            Some("cairn::action::run_exited")
        );
    }
}
