//! What can go wrong reading or writing a journal.

use std::path::Path;

use miette::{Diagnostic, NamedSource, SourceSpan};

/// A journal that cannot be read or written.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum JournalError {
    /// A line in the middle of the journal is not a valid record.
    #[error("journal `{path}` line {line} is not a valid record: {reason}")]
    #[diagnostic(
        code(cairn::runtime::journal_corrupt),
        help(
            "only a torn last line is dropped; fix or remove this line by hand, keeping the rest"
        )
    )]
    Corrupt {
        /// The journal file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// The JSON error.
        reason: String,
        /// The journal text.
        #[source_code]
        source_code: NamedSource<String>,
        /// The bad line.
        #[label("this record")]
        span: SourceSpan,
    },
    /// A record out of the order cairn writes them in: an outcome, progress or decision with
    /// no intent before it, or an intent whose `seq` goes back over a finished action.
    #[error("journal `{path}` line {line} is out of order: {reason}")]
    #[diagnostic(
        code(cairn::runtime::journal_order),
        help(
            "cairn writes an intent before its progress, decision and outcome, and numbers actions upwards; this journal was edited or mixed up, so it cannot say what ran: restore it, or restart the host with `cairn resume --restart-host HOST` after removing it"
        )
    )]
    OutOfOrder {
        /// The journal file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is out of order.
        reason: String,
        /// The journal text.
        #[source_code]
        source_code: NamedSource<String>,
        /// The record.
        #[label("this record")]
        span: SourceSpan,
    },
    /// A file operation failed. The operating system's reason is part of the message, since
    /// the message is often all that is shown (a host's one-line failure, the journal's
    /// `host_end` record): "No space left on device" is the cause, not a detail.
    #[error("{context} `{path}`: {cause}")]
    #[diagnostic(code(cairn::runtime::journal_io))]
    Io {
        /// What was being done.
        context: String,
        /// The file.
        path: String,
        /// The operating system's reason.
        cause: std::io::Error,
    },
    /// The journal has no header, or a header for another host or a newer format.
    #[error("journal `{path}` cannot be resumed: {reason}")]
    #[diagnostic(code(cairn::runtime::journal_header))]
    Header {
        /// The journal file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The shared store refused the record: another controller holds the host now (its lease
    /// moved), or this controller's session ended. Nothing was written; this host stops.
    #[error("{host}: {reason}")]
    #[diagnostic(
        code(cairn::store::fenced),
        help(
            "another controller took the host over, or this one's session expired: it must not act on the host again; `cairn runs --store URL` shows who drives the run"
        )
    )]
    Fenced {
        /// The host whose journal it was.
        host: String,
        /// What the store said.
        reason: String,
    },
    /// This controller is past its self-demotion deadline (its session was not renewed in
    /// time): it begins no new action, since the store may give its hosts to another.
    #[error(
        "{host}: no new action: this controller's store session was not renewed before its deadline"
    )]
    #[diagnostic(
        code(cairn::store::demoted),
        help(
            "the store was unreachable or this machine was paused for longer than the lease TTL allows (`--lease-ttl`); resume the run once the store is reachable"
        )
    )]
    Demoted {
        /// The host that was about to act.
        host: String,
    },
    /// The shared store failed (lost connection, a refused statement).
    #[error("{reason}")]
    #[diagnostic(code(cairn::store::journal_write))]
    Store {
        /// What failed, as the store says it (never with a password).
        reason: String,
    },
}

impl JournalError {
    /// Whether the store ended this host's part for good (fenced or demoted): the host stops,
    /// the run's other hosts are the store's to judge.
    pub fn ends_host(&self) -> bool {
        matches!(self, Self::Fenced { .. } | Self::Demoted { .. })
    }

    pub(crate) fn io(path: &Path, context: &str, source: std::io::Error) -> Self {
        Self::Io {
            context: context.to_owned(),
            path: path.display().to_string(),
            cause: source,
        }
    }
}
