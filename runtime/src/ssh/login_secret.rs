//! Passwords and key passphrases: from the environment variable the inventory names, else asked
//! on the terminal once per credential and kept in this process's memory for the rest of the run
//! (a host that reboots logs in again), never written anywhere.
//!
//! A run drives many hosts at once: hosts that need the same credential wait for one prompt.
//! Without a terminal on standard input nothing is asked, and the login method fails with the
//! reason.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::{Mutex, OnceLock};

/// Asks the operator for a secret.
pub(crate) trait AskSecret {
    /// The answer to `prompt`, or why none could be had.
    fn ask(&self, prompt: &str) -> Result<String, String>;
}

/// The terminal: a prompt on it, without echo (`rpassword`), when standard input is one.
pub(crate) struct Terminal;

impl AskSecret for Terminal {
    fn ask(&self, prompt: &str) -> Result<String, String> {
        if !std::io::stdin().is_terminal() {
            return Err("standard input is not a terminal to ask on".into());
        }
        rpassword::prompt_password(prompt).map_err(|e| format!("cannot ask on the terminal: {e}"))
    }
}

/// One secret to find: the cache key (one prompt per key), the environment variable that may
/// hold it, and the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecretRequest {
    /// Hosts that give the same key share one answer.
    pub(crate) key: String,
    /// The prompt.
    pub(crate) prompt: String,
    /// The environment variable named in the inventory, if any.
    pub(crate) variable: Option<String>,
}

/// Secrets asked so far, by key.
#[derive(Debug, Default)]
pub(crate) struct SecretCache {
    answers: Mutex<BTreeMap<String, String>>,
}

impl SecretCache {
    /// The process's cache.
    pub(crate) fn global() -> &'static Self {
        static CACHE: OnceLock<SecretCache> = OnceLock::new();
        CACHE.get_or_init(Self::default)
    }

    /// The secret: from its environment variable when that is set, else from an earlier
    /// answer, else asked (once: others asking for the same key wait for the answer).
    pub(crate) fn get(
        &self,
        request: &SecretRequest,
        asker: &dyn AskSecret,
    ) -> Result<String, String> {
        if let Some(variable) = &request.variable
            && let Ok(value) = std::env::var(variable)
        {
            return Ok(value);
        }
        let mut answers = self
            .answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(answer) = answers.get(&request.key) {
            return Ok(answer.clone());
        }
        let answer = asker
            .ask(&request.prompt)
            .map_err(|reason| match &request.variable {
                Some(variable) => format!("${variable} is not set, and {reason}"),
                None => reason,
            })?;
        answers.insert(request.key.clone(), answer.clone());
        Ok(answer)
    }

    /// Forgets an answer the host refused, so the next login asks again.
    pub(crate) fn forget(&self, key: &str) {
        self.answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(key);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    struct Counting {
        answer: Result<String, String>,
        asked: AtomicUsize,
    }

    impl AskSecret for Counting {
        fn ask(&self, _prompt: &str) -> Result<String, String> {
            self.asked.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(20));
            self.answer.clone()
        }
    }

    fn request(key: &str, variable: Option<&str>) -> SecretRequest {
        SecretRequest {
            key: key.into(),
            prompt: format!("password for {key}: "),
            variable: variable.map(str::to_owned),
        }
    }

    #[test]
    fn hosts_sharing_a_credential_are_asked_once() {
        let cache = SecretCache::default();
        let asker = Counting {
            answer: Ok("s3cret".into()),
            asked: AtomicUsize::new(0),
        };
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    assert_eq!(
                        cache.get(&request("esx-root", None), &asker).as_deref(),
                        Ok("s3cret")
                    );
                });
            }
        });
        assert_eq!(asker.asked.load(Ordering::SeqCst), 1);
        assert_eq!(
            cache.get(&request("root@other", None), &asker).as_deref(),
            Ok("s3cret")
        );
        assert_eq!(asker.asked.load(Ordering::SeqCst), 2, "another credential");
        cache.forget("esx-root");
        let _ = cache.get(&request("esx-root", None), &asker);
        assert_eq!(
            asker.asked.load(Ordering::SeqCst),
            3,
            "asked again once refused"
        );
    }

    #[test]
    fn a_set_variable_wins_and_an_unset_one_falls_back_to_asking() {
        let cache = SecretCache::default();
        let asker = Counting {
            answer: Err("standard input is not a terminal to ask on".into()),
            asked: AtomicUsize::new(0),
        };
        // PATH is set in any test environment; the other name is not.
        let Ok(path) = std::env::var("PATH") else {
            panic!("PATH is set");
        };
        assert_eq!(cache.get(&request("a", Some("PATH")), &asker), Ok(path));
        assert_eq!(asker.asked.load(Ordering::SeqCst), 0);
        let refused = cache.get(&request("b", Some("CAIRN_TEST_UNSET_PASSWORD_VAR")), &asker);
        assert_eq!(
            refused,
            Err(
                "$CAIRN_TEST_UNSET_PASSWORD_VAR is not set, and standard input is not a terminal to ask on"
                    .into()
            )
        );
        assert_eq!(asker.asked.load(Ordering::SeqCst), 1);
    }
}
