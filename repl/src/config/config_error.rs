//! Why a config file was refused, with the span in the file.

use std::path::PathBuf;

use miette::{NamedSource, SourceSpan};

/// A config file that cannot be used: nothing runs with half a configuration.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read {}", path.display())]
    #[diagnostic(code(cairn::config::read))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not TOML.
    #[error("{message}")]
    #[diagnostic(code(cairn::config::syntax))]
    Syntax {
        /// The TOML parser's message.
        message: String,
        /// The file.
        #[source_code]
        src: NamedSource<cairn_runtime::source_fold::LongLines>,
        /// Where.
        #[label("here")]
        span: SourceSpan,
    },
    /// A section or key cairn does not know.
    #[error("unknown {what} `{name}`")]
    #[diagnostic(code(cairn::config::unknown_key))]
    Unknown {
        /// The did-you-mean and the known names.
        #[help]
        help: String,
        /// The unknown name.
        name: String,
        /// The file.
        #[source_code]
        src: NamedSource<cairn_runtime::source_fold::LongLines>,
        /// Where it is written.
        #[label("not known")]
        span: SourceSpan,
        /// `section` or `key in [defaults]`.
        what: String,
    },
    /// A value the option does not take.
    #[error("{reason}")]
    #[diagnostic(code(cairn::config::bad_value))]
    BadValue {
        /// Why.
        reason: String,
        /// The file.
        #[source_code]
        src: NamedSource<cairn_runtime::source_fold::LongLines>,
        /// The value.
        #[label("this value")]
        span: SourceSpan,
    },
}
