//! One connection to the store, and how its failures are told apart.

use std::time::Duration;

use postgres::{Client, NoTls};

use crate::answer_within::answer_within;
use crate::{StoreError, StoreUrl};

/// A connection to the shared store, migrated to this cairn's schema.
///
/// Each call is one statement or one short transaction on this connection; a connection lost
/// mid-call gives [`StoreError::Lost`] and [`PgStore::reconnect`] opens a new one.
pub struct PgStore {
    pub(crate) url: StoreUrl,
    pub(crate) client: Client,
    /// Statements prepared once on this connection (the journal appends, sent for every
    /// record): a string query is parsed and planned again at each call, in two round trips.
    prepared: std::collections::HashMap<&'static str, postgres::Statement>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("url", &self.url).finish()
    }
}

impl PgStore {
    /// Connects to `url` and creates or migrates the schema.
    pub fn connect(url: &StoreUrl) -> Result<Self, StoreError> {
        let client = open(url)?;
        let mut store = Self {
            url: url.clone(),
            client,
            prepared: std::collections::HashMap::new(),
        };
        store.migrate()?;
        Ok(store)
    }

    /// Connects to `url` whose schema this controller already checked on its session's
    /// connection: a run's append workers and its heartbeat open theirs so, since each check
    /// is a transaction under one lock, and the workers' at a run's first appends queued
    /// behind one another.
    pub(crate) fn connect_checked(url: &StoreUrl) -> Result<Self, StoreError> {
        Ok(Self {
            url: url.clone(),
            client: open(url)?,
            prepared: std::collections::HashMap::new(),
        })
    }

    /// Replaces a lost connection with a new one (the schema is checked again).
    pub fn reconnect(&mut self) -> Result<(), StoreError> {
        self.client = open(&self.url)?;
        self.prepared.clear();
        self.migrate()
    }

    /// `sql` prepared on this connection, once.
    pub(crate) fn prepared(
        &mut self,
        sql: &'static str,
    ) -> Result<postgres::Statement, postgres::Error> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.client.prepare(sql)?;
        self.prepared.insert(sql, statement.clone());
        Ok(statement)
    }

    /// The store's URL.
    pub fn url(&self) -> &StoreUrl {
        &self.url
    }

    /// Whether the connection is known to be closed.
    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// `error` from trying to `action`, as a lost connection or a refusal.
    pub(crate) fn fail(&self, action: &'static str, error: postgres::Error) -> StoreError {
        connection_fail(&self.url, action, error)
    }
}

/// `error` from trying to `action` on `url`, as a lost connection or a refusal.
pub(crate) fn connection_fail(
    url: &StoreUrl,
    action: &'static str,
    error: postgres::Error,
) -> StoreError {
    if is_connection_loss(&error) {
        StoreError::Lost {
            url: url.redacted(),
            action,
            source: error,
        }
    } else {
        StoreError::Query {
            action,
            source: error,
        }
    }
}

/// How long opening a connection may take when the URL sets no `connect_timeout`.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

/// Opens a connection, waiting at most the URL's `connect_timeout` (libpq's parameter, default
/// [`CONNECT_LIMIT`]) for the whole of it. The driver's own `connect_timeout` bounds only the
/// socket's connect, and a store that takes the socket and then answers nothing (a proxy or a
/// pooler that stopped forwarding, a hung server) would hold the start of a command for ever.
fn open(url: &StoreUrl) -> Result<Client, StoreError> {
    let limit = url
        .config()
        .get_connect_timeout()
        .copied()
        .unwrap_or(CONNECT_LIMIT);
    let config = url.config().clone();
    let answer = answer_within(limit, move || config.connect(NoTls));
    match answer {
        Some(Ok(client)) => Ok(client),
        Some(Err(source)) => Err(StoreError::Connect {
            url: url.redacted(),
            source,
        }),
        None => Err(StoreError::ConnectTimeout {
            url: url.redacted(),
            waited_secs: limit.as_secs_f64().ceil() as u64,
        }),
    }
}

/// A closed socket, an I/O failure, or the server ending the connection (SQLSTATE class 57:
/// `admin_shutdown`, `crash_shutdown`, `cannot_connect_now`; class 08: connection exceptions):
/// <https://www.postgresql.org/docs/15/errcodes-appendix.html>.
fn is_connection_loss(error: &postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    if let Some(code) = error.code() {
        let code = code.code();
        return code.starts_with("57P") || code.starts_with("08");
    }
    // No SQLSTATE: the driver's own I/O error.
    std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>())
}
