//! Why an inventory cannot be used, pointing at the exact place in the file.

use miette::{NamedSource, SourceSpan};

/// An inventory error. Every variant but [`InventoryError::Io`] carries the file and the span
/// of the offending text.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum InventoryError {
    /// An address that does not parse.
    #[error("invalid address: {reason}")]
    #[diagnostic(code(cairn::runtime::inventory_bad_address))]
    BadAddress {
        /// What is wrong.
        reason: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The offending part of the address.
        #[label("here")]
        span: SourceSpan,
    },
    /// A group name that is not an identifier.
    #[error("invalid {kind} name `{name}`: {reason}")]
    #[diagnostic(
        code(cairn::runtime::inventory_bad_name),
        help(
            "group names are identifiers, as `stage ... on GROUP` writes them: letters, digits and `_`, not starting with a digit"
        )
    )]
    BadName {
        /// `host` or `group`.
        kind: &'static str,
        /// The name.
        name: String,
        /// What is wrong.
        reason: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The offending character.
        #[label("here")]
        span: SourceSpan,
    },
    /// A host pattern whose ranges do not expand.
    #[error("invalid host pattern `{pattern}`: {reason}")]
    #[diagnostic(
        code(cairn::runtime::inventory_bad_pattern),
        help("ranges are written `node[01-16]`, `node[1-3,7]` or `r[1-2]n[1-8]`")
    )]
    BadPattern {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        reason: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The offending part of the pattern.
        #[label("here")]
        span: SourceSpan,
    },
    /// A host name that cannot name the host's files, or is reserved.
    #[error("invalid host name `{name}`: {reason}")]
    #[diagnostic(
        code(cairn::runtime::inventory_bad_host_name),
        help(
            "a host's name names its journal (`<name>.jsonl`) and its simulator state folder: not `.` or `..`, no `/`, at most 249 bytes; `controller` is the interpreter's own instance"
        )
    )]
    BadHostName {
        /// The name (shortened when long).
        name: String,
        /// What is wrong.
        reason: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The host's entry.
        #[label("this host")]
        span: SourceSpan,
    },
    /// An address that parses but names what does not exist (a simulator model or option).
    #[error("unusable address: {reason}")]
    #[diagnostic(code(cairn::runtime::inventory_unusable_address))]
    UnusableAddress {
        /// What would fix it.
        #[help]
        help: Option<String>,
        /// What is wrong.
        reason: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The offending part of the address.
        #[label("here")]
        span: SourceSpan,
    },
    /// A port that is not a number from 1 to 65535.
    #[error("port `{port}` is not a number from 1 to 65535")]
    #[diagnostic(code(cairn::runtime::inventory_bad_port))]
    BadPort {
        /// The port as written.
        port: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The port.
        #[label("this port")]
        span: SourceSpan,
    },
    /// Two entries define the same host.
    #[error("host `{name}` is defined twice")]
    #[diagnostic(
        code(cairn::runtime::inventory_duplicate_host),
        help("each host appears once; give it several groups with `groups = [...]`")
    )]
    DuplicateHost {
        /// The first definition.
        #[label("first defined here")]
        first: SourceSpan,
        /// The host.
        name: String,
        /// The second definition.
        #[label("defined again here")]
        second: SourceSpan,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
    },
    /// Groups that contain themselves through `children`.
    #[error("group `{name}` contains itself through `children`")]
    #[diagnostic(code(cairn::runtime::inventory_group_cycle))]
    GroupCycle {
        /// The group.
        name: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The child reference that closes the cycle.
        #[label("closes the cycle")]
        span: SourceSpan,
    },
    /// The file cannot be read.
    #[error("cannot read inventory `{path}`")]
    #[diagnostic(code(cairn::runtime::inventory_io))]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A group name that the runtime reserves, used where it cannot be.
    #[error("group `{name}` is reserved: {reason}")]
    #[diagnostic(code(cairn::runtime::inventory_reserved_group))]
    ReservedGroup {
        /// The group.
        name: String,
        /// Why it cannot be used here.
        reason: &'static str,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// Where it is used.
        #[label("reserved")]
        span: SourceSpan,
    },
    /// The file is not valid TOML, or a value has the wrong type.
    #[error("invalid inventory: {message}")]
    #[diagnostic(code(cairn::runtime::inventory_syntax))]
    Syntax {
        /// What the TOML reader says.
        message: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// Where.
        #[label("here")]
        span: SourceSpan,
    },
    /// A group in `children` that no entry defines and no host names.
    #[error("group `{name}` in the children of `{parent}` is not defined")]
    #[diagnostic(code(cairn::runtime::inventory_unknown_group))]
    UnknownGroup {
        /// What to do.
        #[help]
        help: String,
        /// The missing group.
        name: String,
        /// The group whose children name it.
        parent: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The reference.
        #[label("not defined")]
        span: SourceSpan,
    },
    /// A key the inventory format does not have.
    #[error("unknown key `{key}`")]
    #[diagnostic(code(cairn::runtime::inventory_unknown_key))]
    UnknownKey {
        /// The allowed keys, and the closest one.
        #[help]
        help: String,
        /// The key.
        key: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The key.
        #[label("unknown key")]
        span: SourceSpan,
    },
    /// An address whose scheme is not `local`, `sim:` or `ssh://`.
    #[error("unknown address scheme `{scheme}`")]
    #[diagnostic(code(cairn::runtime::inventory_unknown_scheme))]
    UnknownScheme {
        /// The forms an address takes.
        #[help]
        help: String,
        /// The scheme as written.
        scheme: String,
        /// The file.
        #[source_code]
        src: NamedSource<crate::source_fold::LongLines>,
        /// The scheme.
        #[label("unknown scheme")]
        span: SourceSpan,
    },
}
