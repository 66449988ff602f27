//! What can go wrong with the shared store, said so that the operator knows what happened.

/// An error of the PostgreSQL store.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum StoreError {
    /// The URL is not a PostgreSQL URL this cairn can use.
    #[error("`{url}` is not a store URL: {reason}")]
    #[diagnostic(
        code(cairn::store::bad_url),
        help("give `postgres://USER@HOST/DATABASE` (or `?host=/socket/folder` for a Unix socket)")
    )]
    BadUrl {
        /// The URL, without its password.
        url: String,
        /// Why it was refused.
        reason: String,
    },

    /// The store took the connection and answered nothing within the connect limit (a proxy
    /// or a pooler that stopped forwarding, a hung server): nothing was done.
    #[error(
        "the store {url} did not answer within {waited_secs} s while connecting; nothing was done"
    )]
    #[diagnostic(
        code(cairn::store::connect_timeout),
        help(
            "is the server, or a proxy or pooler in front of it, hung? `connect_timeout=SECS` in the URL's query sets how long to wait (default 30)"
        )
    )]
    ConnectTimeout {
        /// The URL, without its password.
        url: String,
        /// How long it waited.
        waited_secs: u64,
    },

    /// The store answered nothing within the connect limit to a read made before the command
    /// acted on any host (the runs to list or resume, a standby's look for orphans).
    #[error(
        "the store {url} did not answer within {waited_secs} s while trying to {action}; no host was touched"
    )]
    #[diagnostic(
        code(cairn::store::unanswered),
        help(
            "is the server, or a proxy or pooler in front of it, hung? `connect_timeout=SECS` in the URL's query sets how long to wait (default 30)"
        )
    )]
    Unanswered {
        /// The URL, without its password.
        url: String,
        /// What was being done.
        action: &'static str,
        /// How long it waited.
        waited_secs: u64,
    },

    /// The server could not be reached or refused the login.
    #[error("cannot connect to the store {url}: {}", reason(.source))]
    #[diagnostic(
        code(cairn::store::connect),
        help("is PostgreSQL running there, and does it let this user in (pg_hba.conf)?")
    )]
    Connect {
        /// The URL, without its password.
        url: String,
        /// The driver's reason.
        source: postgres::Error,
    },

    /// The connection broke while in use (the server restarted or the network dropped); what
    /// was being done may or may not have been committed.
    #[error("lost the connection to the store {url} while trying to {action}: {}", reason(.source))]
    #[diagnostic(
        code(cairn::store::lost),
        help("reconnect and read back what was committed; a fenced append is never applied twice")
    )]
    Lost {
        /// The URL, without its password.
        url: String,
        /// What was being done.
        action: &'static str,
        /// The driver's reason.
        source: postgres::Error,
    },

    /// This controller no longer holds the host at that epoch: another controller took it
    /// over. Nothing was written; the host must not be acted on again by this controller.
    #[error(
        "fenced: this controller no longer holds {host} at epoch {epoch} ({now}); nothing was written"
    )]
    #[diagnostic(
        code(cairn::store::fenced),
        help("another controller took the host over; stop acting on it")
    )]
    Fenced {
        /// The host.
        host: String,
        /// The epoch this controller held.
        epoch: i64,
        /// Who holds it now, as far as the store says.
        now: String,
    },

    /// The session's TTL ran out by the database's clock before it was renewed: its leases may
    /// already be another controller's.
    #[error("the controller session {session} expired by the store's clock; it cannot be renewed")]
    #[diagnostic(
        code(cairn::store::session_expired),
        help(
            "open a new session and take the hosts again; anything in flight is settled by a resume"
        )
    )]
    SessionExpired {
        /// The session's id.
        session: i64,
    },

    /// The store's schema is newer than this cairn knows.
    #[error("the store's schema is version {found}; this cairn knows up to version {known}")]
    #[diagnostic(
        code(cairn::store::schema_too_new),
        help("use the cairn that upgraded this store, or a newer one")
    )]
    SchemaTooNew {
        /// The version found.
        found: i32,
        /// The newest version this cairn knows.
        known: i32,
    },

    /// The working copy of a run (its folder on this machine) cannot be written.
    #[error("cannot write `{path}`, the working copy of a stored run: {source}")]
    #[diagnostic(code(cairn::store::working_copy))]
    WorkingCopy {
        /// The file.
        path: String,
        /// The operating system's reason.
        source: std::io::Error,
    },

    /// A stored run's `run.json` is not one this cairn reads.
    #[error("the stored run.json of run {run_id} cannot be read: {reason}")]
    #[diagnostic(code(cairn::store::bad_meta))]
    BadMeta {
        /// The run.
        run_id: String,
        /// Why.
        reason: String,
    },

    /// A statement failed for another reason.
    #[error("the store refused to {action}: {}", reason(.source))]
    #[diagnostic(code(cairn::store::query))]
    Query {
        /// What was being done.
        action: &'static str,
        /// The driver's reason.
        source: postgres::Error,
    },

    /// The store answered nothing within the session's time (a proxy or a pooler that stopped
    /// forwarding, a hung server): what was sent may or may not have been committed.
    #[error(
        "the store {url} did not answer within {waited_secs} s while trying to {action}, so this controller stops acting: its session expires by itself"
    )]
    #[diagnostic(
        code(cairn::store::no_answer),
        help(
            "once the store answers again, `cairn resume --store URL RUN` (or a standby) continues the run from its journal"
        )
    )]
    NoAnswer {
        /// The URL, without its password.
        url: String,
        /// What was being done.
        action: &'static str,
        /// How long it waited.
        waited_secs: u64,
    },

    /// A journal append sent in one statement with other hosts' appends, which failed as a
    /// whole: nothing of it was written, or, when the connection was lost, it is not known.
    #[error(
        "the store failed a journal append sent with {others} other host(s)' appends: {reason}"
    )]
    #[diagnostic(code(cairn::store::batch))]
    Batch {
        /// How many other appends were in the statement.
        others: usize,
        /// The statement's error.
        reason: String,
        /// Whether the connection was lost.
        lost: bool,
    },

    /// No connection of the appends' pool could be had (all busy past the wait, or none could
    /// be opened).
    #[error("no connection to the store {url} for a journal append: {reason}")]
    #[diagnostic(code(cairn::store::no_connection))]
    NoConnection {
        /// The URL, without its password.
        url: String,
        /// Why.
        reason: String,
    },
}

impl StoreError {
    /// The store at `url` did not answer within `limit` while trying to `action`.
    pub(crate) fn no_answer(
        url: &crate::StoreUrl,
        action: &'static str,
        limit: std::time::Duration,
    ) -> Self {
        Self::NoAnswer {
            url: url.redacted(),
            action,
            waited_secs: limit.as_secs_f64().ceil() as u64,
        }
    }

    /// The store at `url` did not answer within `limit` to a read before acting, `action`.
    pub(crate) fn unanswered(
        url: &crate::StoreUrl,
        action: &'static str,
        limit: std::time::Duration,
    ) -> Self {
        Self::Unanswered {
            url: url.redacted(),
            action,
            waited_secs: limit.as_secs_f64().ceil() as u64,
        }
    }

    /// Whether the connection is gone (reconnecting may help), as opposed to a refusal.
    pub fn is_lost(&self) -> bool {
        matches!(
            self,
            Self::Lost { .. }
                | Self::Connect { .. }
                | Self::ConnectTimeout { .. }
                | Self::Unanswered { .. }
                | Self::NoConnection { .. }
                | Self::Batch { lost: true, .. }
        )
    }
}

/// The driver's error with the server's message (its `Display` alone says only "db error")
/// or the I/O cause.
fn reason(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{} ({})", db.message(), db.code().code());
    }
    match std::error::Error::source(error) {
        Some(cause) => format!("{error}: {cause}"),
        None => error.to_string(),
    }
}
