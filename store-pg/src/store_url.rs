//! The store's address, as `--store` or `CAIRN_STORE` gives it.

use std::str::FromStr;
use std::time::Duration;

use crate::StoreError;

/// How long opening a connection may take when the URL sets no `connect_timeout`.
const CONNECT_LIMIT: Duration = Duration::from_secs(30);

/// A PostgreSQL connection URL, checked before anything connects, and shown without its
/// password.
#[derive(Clone)]
pub struct StoreUrl {
    text: String,
    config: postgres::Config,
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoreUrl({})", self.redacted())
    }
}

impl StoreUrl {
    /// `postgres://` or `postgresql://` URLs only (libpq's URI form, which `postgres::Config`
    /// parses: <https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING>). The
    /// key=value form is refused so that a typo cannot read as a folder path.
    pub fn parse(text: &str) -> Result<Self, StoreError> {
        let scheme = text.split_once("://").map(|(scheme, _)| scheme);
        match scheme {
            Some("postgres" | "postgresql") => {}
            Some(other) => {
                return Err(StoreError::BadUrl {
                    url: redact(text),
                    reason: format!("`{other}://` is not a store this cairn knows"),
                });
            }
            None => {
                return Err(StoreError::BadUrl {
                    url: redact(text),
                    reason: "it has no `postgres://` scheme".into(),
                });
            }
        }
        let config = postgres::Config::from_str(text).map_err(|error| StoreError::BadUrl {
            url: redact(text),
            reason: error.to_string(),
        })?;
        Ok(Self {
            text: text.to_owned(),
            config,
        })
    }

    /// The connection settings.
    pub(crate) fn config(&self) -> &postgres::Config {
        &self.config
    }

    /// How long a connection's opening, or a read before a command acts, waits for the store:
    /// the URL's `connect_timeout` (libpq's parameter), else [`CONNECT_LIMIT`].
    pub fn connect_limit(&self) -> Duration {
        self.config
            .get_connect_timeout()
            .copied()
            .unwrap_or(CONNECT_LIMIT)
    }

    /// The URL with any password replaced by `***`, for messages.
    pub fn redacted(&self) -> String {
        redact(&self.text)
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`; `password=` query values
/// too.
fn redact(text: &str) -> String {
    let mut out = text.to_owned();
    if let Some((scheme, rest)) = text.split_once("://") {
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if let Some(at) = authority.rfind('@') {
            let userinfo = &authority[..at];
            if let Some((user, _)) = userinfo.split_once(':') {
                out = format!("{scheme}://{user}:***{}", &rest[at..]);
            }
        }
    }
    if let Some(start) = out.find("password=") {
        let value_start = start + "password=".len();
        let value_end = out[value_start..]
            .find('&')
            .map_or(out.len(), |end| value_start + end);
        out.replace_range(value_start..value_end, "***");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_of_another_scheme_is_refused_naming_it() {
        let error = StoreUrl::parse("mysql://db/cairn").unwrap_err();
        assert!(
            error.to_string().contains("`mysql://` is not a store"),
            "{error}"
        );
    }

    #[test]
    fn a_bare_path_is_refused() {
        let error = StoreUrl::parse("/var/lib/cairn").unwrap_err();
        assert!(
            error.to_string().contains("no `postgres://` scheme"),
            "{error}"
        );
    }

    #[test]
    fn a_malformed_url_is_refused_with_the_parser_reason_and_no_password() {
        let error = StoreUrl::parse("postgres://u:hunter2@db/cairn?sslmode=sometimes").unwrap_err();
        let text = error.to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.contains("u:***@db"), "{text}");
    }

    #[test]
    fn a_unix_socket_url_is_accepted_and_shown_without_its_password() {
        let url =
            StoreUrl::parse("postgresql://cairn:pw@/fleet?host=/run/pg&password=pw2").unwrap();
        assert_eq!(
            url.redacted(),
            "postgresql://cairn:***@/fleet?host=/run/pg&password=***"
        );
    }
}
