//! The operator's `--assume` answers for actions whose outcome is unknown: one for every host
//! (`done`, `redo`) and one per host (`HOST=done`), since after a crash one host's action may
//! have run and another's not.

use std::collections::BTreeMap;

use crate::journal::Assume;

/// `--assume` values, as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assumptions {
    /// A bare `done` or `redo`: the answer for every host without one of its own.
    pub all: Option<Assume>,
    /// `HOST=done|redo`.
    pub hosts: BTreeMap<String, Assume>,
}

impl Assumptions {
    /// Reads `--assume` values: `done`, `redo`, `HOST=done`, `HOST=redo`; two different
    /// answers for the same hosts are refused.
    pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Self, String> {
        let mut assumptions = Self::default();
        for value in values {
            let value = value.as_ref();
            let (host, answer) = match value.rsplit_once('=') {
                Some((host, answer)) => (Some(host.trim()), answer),
                None => (None, value),
            };
            let answer = match answer.trim() {
                "done" => Assume::Done,
                "redo" => Assume::Redo,
                other => {
                    return Err(format!(
                        "--assume {value}: `{other}` is neither `done` nor `redo`"
                    ));
                }
            };
            let previous = match host {
                Some("") => return Err(format!("--assume {value}: the host name is empty")),
                Some(host) => assumptions.hosts.insert(host.to_owned(), answer),
                None => assumptions.all.replace(answer),
            };
            if previous.is_some_and(|p| p != answer) {
                return Err(format!(
                    "--assume {value} contradicts an earlier --assume for the same host(s)"
                ));
            }
        }
        Ok(assumptions)
    }

    /// The answer for `host`: its own, or the one for every host.
    pub fn for_host(&self, host: &str) -> Option<Assume> {
        self.hosts.get(host).copied().or(self.all)
    }

    /// The answer given for `host` by name (`HOST=done`), not the bare one.
    pub fn named(&self, host: &str) -> Option<Assume> {
        self.hosts.get(host).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_host_answers_win_over_the_bare_one() -> Result<(), String> {
        let a = Assumptions::parse(&["redo", "esx01=done"])?;
        assert_eq!(a.for_host("esx01"), Some(Assume::Done));
        assert_eq!(a.for_host("esx02"), Some(Assume::Redo));
        let b = Assumptions::parse(&["esx01=done"])?;
        assert_eq!(b.for_host("esx02"), None);
        Ok(())
    }

    #[test]
    fn bad_and_contradicting_answers_are_refused() {
        assert!(Assumptions::parse(&["maybe"]).is_err());
        assert!(Assumptions::parse(&["=done"]).is_err());
        assert!(Assumptions::parse(&["a=done", "a=redo"]).is_err());
        assert!(Assumptions::parse(&["done", "redo"]).is_err());
        assert!(Assumptions::parse(&["a=done", "a=done"]).is_ok());
    }
}
