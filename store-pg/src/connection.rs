//! One connection to the store, and how its failures are told apart.

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
    /// Connects to `url` and creates or migrates the schema, waiting at most the URL's connect
    /// limit ([`StoreUrl::connect_limit`]) for the whole of it: the schema check is a read too,
    /// and a store gone silent after taking the connection would hold it for ever.
    pub fn connect(url: &StoreUrl) -> Result<Self, StoreError> {
        let owned = url.clone();
        let answer = answer_within(url.connect_limit(), move || {
            let mut store = Self::on(&owned, open_client(&owned)?);
            store.migrate()?;
            Ok(store)
        });
        answer.unwrap_or_else(|| Err(connect_timeout(url)))
    }

    /// Connects to `url` whose schema this controller already checked on its session's
    /// connection: a run's append workers and its heartbeat open theirs so, since each check
    /// is a transaction under one lock, and the workers' at a run's first appends queued
    /// behind one another.
    pub(crate) fn connect_checked(url: &StoreUrl) -> Result<Self, StoreError> {
        let owned = url.clone();
        let answer = answer_within(url.connect_limit(), move || open_client(&owned));
        let client = answer.unwrap_or_else(|| Err(connect_timeout(url)))?;
        Ok(Self::on(url, client))
    }

    fn on(url: &StoreUrl, client: Client) -> Self {
        Self {
            url: url.clone(),
            client,
            prepared: std::collections::HashMap::new(),
        }
    }

    /// Replaces a lost connection with a new one (the schema is checked again).
    pub fn reconnect(&mut self) -> Result<(), StoreError> {
        *self = Self::connect(&self.url)?;
        Ok(())
    }

    /// Runs `f` on this connection on a thread of its own, waiting for the store's answer at
    /// most the connect limit, and gives the connection back with the answer: for the reads a
    /// command makes before it acts (the runs to list or resume, a standby's look for orphans),
    /// which would otherwise wait for ever on a store that went silent after the connection
    /// opened. Without an answer the connection is left behind: reconnect to go on.
    pub fn call<T: Send + 'static>(
        self,
        action: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<(Self, T), StoreError> {
        let url = self.url.clone();
        let limit = url.connect_limit();
        let mut store = self;
        let answer = answer_within(limit, move || f(&mut store).map(|answer| (store, answer)));
        answer.unwrap_or_else(|| Err(StoreError::unanswered(&url, action, limit)))
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

/// Opens a connection. The driver's own `connect_timeout` bounds only the socket's connect:
/// the callers bound the whole of it (socket, startup, login) with [`answer_within`], since a
/// store that takes the socket and then answers nothing (a proxy or a pooler that stopped
/// forwarding, a hung server) would hold the start of a command for ever.
fn open_client(url: &StoreUrl) -> Result<Client, StoreError> {
    url.config()
        .connect(NoTls)
        .map_err(|source| StoreError::Connect {
            url: url.redacted(),
            source,
        })
}

fn connect_timeout(url: &StoreUrl) -> StoreError {
    StoreError::ConnectTimeout {
        url: url.redacted(),
        waited_secs: url.connect_limit().as_secs_f64().ceil() as u64,
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
