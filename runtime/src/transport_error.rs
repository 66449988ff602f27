//! Why a command could not be run, or its fate is unknown.

/// A failure to reach a host or to learn what a command did.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum TransportError {
    /// The command may or may not have run: the connection dropped while it ran.
    #[error("connection to `{host}` dropped while `{command}` ran: its outcome is unknown")]
    #[diagnostic(code(cairn::runtime::interrupted))]
    Interrupted {
        /// The command line.
        command: String,
        /// The host.
        host: String,
    },
    /// The operator stopped the command while it ran (Ctrl-C in the REPL): it may have done
    /// part of its work.
    #[error("`{command}` on `{host}` was stopped while it ran: what it did is unknown")]
    #[diagnostic(code(cairn::runtime::command_stopped))]
    Stopped {
        /// The command line.
        command: String,
        /// The host.
        host: String,
    },
    /// The host is refused before its first action (a changed host key, a fence folder that
    /// cannot keep the fence): the runbook never started on it, nothing ran.
    #[error("`{host}` is refused before its first action: {reason}")]
    #[diagnostic(code(cairn::runtime::host_refused))]
    Refused {
        /// The host.
        host: String,
        /// Why, as the transport's typed error says it.
        reason: String,
        /// What to do about it.
        help: Option<String>,
    },
    /// A local failure to start or talk to a process or file.
    #[error("{context}")]
    #[diagnostic(code(cairn::runtime::transport_io))]
    Io {
        /// What was being done.
        context: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The command did not finish in time.
    #[error("`{command}` on `{host}` did not finish within {seconds} s")]
    #[diagnostic(code(cairn::runtime::command_timeout))]
    TimedOut {
        /// The command line.
        command: String,
        /// The host.
        host: String,
        /// The limit.
        seconds: u64,
    },
    /// A simulated host's own state, kept on this machine, could not be read or written (a
    /// full disk): the command may have run, its effect is not kept, and the whole run stops
    /// with the cause, as when a journal cannot be written.
    #[error("{context}")]
    #[diagnostic(code(cairn::runtime::sim_state))]
    HostState {
        /// What failed, with the operating system's reason.
        context: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The host's transport could not be made from its inventory entry (an SSH option or key
    /// that does not hold, a simulated host's state): nothing ran on it. The cause is kept
    /// whole, its code and help with it, for the failure report.
    #[error("`{host}` was not contacted: {cause}")]
    #[diagnostic(code(cairn::runtime::not_opened))]
    NotOpened {
        /// The host.
        host: String,
        /// Why its transport could not be made.
        #[diagnostic_source]
        cause: OpenCause,
    },
    /// The host does not answer (down, rebooting, or the network is gone).
    #[error("`{host}` is unreachable: {reason}")]
    #[diagnostic(code(cairn::runtime::unreachable))]
    Unreachable {
        /// The host.
        host: String,
        /// What failed.
        reason: String,
    },
}

/// Why a host's transport could not be made, typed (an `SshError`, a `SimError`), shared by
/// every command the host would have run.
#[derive(Debug, Clone)]
pub struct OpenCause(pub std::sync::Arc<dyn miette::Diagnostic + Send + Sync>);

impl std::fmt::Display for OpenCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for OpenCause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl miette::Diagnostic for OpenCause {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.0.code()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.0.help()
    }
}
