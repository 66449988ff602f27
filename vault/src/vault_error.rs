//! Why a vault cannot be opened, written or edited. No message carries a decrypted byte.

use std::path::PathBuf;

/// What went wrong with a vault.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum VaultError {
    /// The file cannot be read or written.
    #[error("cannot {action} `{path}`: {source}")]
    #[diagnostic(code(cairn::vault::io))]
    Io {
        /// `read`, `write`, ...
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The key does not open the file: another identity, a wrong passphrase.
    #[error("`{path}` cannot be opened with {key}: {reason}")]
    #[diagnostic(
        code(cairn::vault::wrong_key),
        help(
            "a vault opens with the identity file or the passphrase it was created or last rekeyed with (`cairn vault rekey` changes it)"
        )
    )]
    WrongKey {
        /// The file.
        path: PathBuf,
        /// The key, as `the identity file `x``.
        key: String,
        /// age's reason.
        reason: String,
    },
    /// The file is no age file, or was changed after it was written.
    #[error("`{path}` is not an intact vault: {reason}")]
    #[diagnostic(
        code(cairn::vault::damaged),
        help(
            "the file was changed outside `cairn vault` (or is no vault); restore it from the repository's history"
        )
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The plaintext is not a TOML table of strings. Says where, never what.
    #[error(
        "the secrets of `{path}` are not a TOML table of strings: {reason} (line {line}, column {column})"
    )]
    #[diagnostic(
        code(cairn::vault::secrets_syntax),
        help("write one `name = \"value\"` per line; a value is always a string")
    )]
    Syntax {
        /// The vault.
        path: PathBuf,
        /// What is wrong, without the text.
        reason: String,
        /// 1-based.
        line: usize,
        /// 1-based.
        column: usize,
    },
    /// No key to open or seal the vault with.
    #[error("no key for the vault `{path}`: {reason}")]
    #[diagnostic(
        code(cairn::vault::no_key),
        help(
            "give --vault-identity FILE (an age identity file, `cairn vault keygen FILE` writes one), --vault-passphrase-file FILE or --vault-passphrase-command CMD, or run on a terminal to be asked"
        )
    )]
    NoKey {
        /// The vault.
        path: PathBuf,
        /// Why none.
        reason: String,
    },
    /// The identity file or the passphrase's source is unusable.
    #[error("{0}")]
    #[diagnostic(code(cairn::vault::unusable_key))]
    Key(String),
    /// `create` on a file that exists, or another command on one that does not.
    #[error("{message}")]
    #[diagnostic(code(cairn::vault::file))]
    File {
        /// What is wrong.
        message: String,
        /// What to do.
        #[help]
        help: Option<String>,
    },
    /// The editor could not run, or failed.
    #[error("{0}; the vault is unchanged")]
    #[diagnostic(code(cairn::vault::editor))]
    Editor(String),
}

impl VaultError {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.to_owned(),
            source,
        }
    }

    /// Refuses a vault file that is not there, saying how to make one.
    pub(crate) fn must_exist(path: &std::path::Path) -> Result<(), Self> {
        if path.exists() {
            return Ok(());
        }
        Err(Self::File {
            message: format!("no vault `{}`", path.display()),
            help: Some(format!(
                "make one with `cairn vault create {}`",
                path.display()
            )),
        })
    }
}
