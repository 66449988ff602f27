//! Why an address (`local`, `sim:MODEL?k=v`, `ssh://user@host:port`) does not parse.

use std::ops::Range;

use miette::SourceSpan;

/// An address that does not parse, with the span of the offending part of the address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum AddressError {
    /// The port is not a number from 1 to 65535.
    #[error("port `{port}` is not a number from 1 to 65535")]
    #[diagnostic(code(cairn::runtime::address_bad_port))]
    BadPort {
        /// The whole address.
        #[source_code]
        address: String,
        /// The port as written.
        port: String,
        /// Where the port is.
        #[label("this port")]
        span: SourceSpan,
    },
    /// Some part of the address is malformed.
    #[error("invalid address: {reason}")]
    #[diagnostic(code(cairn::runtime::address_invalid))]
    Invalid {
        /// The whole address.
        #[source_code]
        address: String,
        /// What is wrong.
        reason: String,
        /// Where.
        #[label("here")]
        span: SourceSpan,
    },
    /// The address starts with no scheme the runtime knows.
    #[error("unknown address scheme `{scheme}`")]
    #[diagnostic(code(cairn::runtime::address_unknown_scheme))]
    UnknownScheme {
        /// The whole address.
        #[source_code]
        address: String,
        /// What to write instead.
        #[help]
        help: String,
        /// The scheme as written.
        scheme: String,
        /// Where the scheme is.
        #[label("unknown scheme")]
        span: SourceSpan,
    },
}

impl AddressError {
    /// The byte range of the offending part, within the address.
    pub fn range(&self) -> Range<usize> {
        let span = match self {
            Self::BadPort { span, .. }
            | Self::Invalid { span, .. }
            | Self::UnknownScheme { span, .. } => span,
        };
        span.offset()..span.offset() + span.len()
    }
}
