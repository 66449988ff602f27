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
}

impl JournalError {
    pub(crate) fn io(path: &Path, context: &str, source: std::io::Error) -> Self {
        Self::Io {
            context: context.to_owned(),
            path: path.display().to_string(),
            cause: source,
        }
    }
}
