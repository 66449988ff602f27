//! Where a vault's passphrase comes from: the terminal, a file, or a command's output (a
//! password manager's, `pass show site/vault`), so CI needs no terminal and no plaintext in
//! the repository.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use age::secrecy::SecretString;

use crate::VaultError;

/// Where a passphrase comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassphraseSource {
    /// Asked on the terminal, without echo.
    Prompt,
    /// The first line of this file.
    File(PathBuf),
    /// The first line this shell command prints (`sh -c`).
    Command(String),
}

impl PassphraseSource {
    /// The passphrase. `confirm` asks twice on the terminal (a new passphrase).
    pub(crate) fn read(&self, vault: &Path, confirm: bool) -> Result<SecretString, VaultError> {
        let text = match self {
            Self::Prompt => prompt(vault, confirm)?,
            Self::File(path) => std::fs::read_to_string(path).map_err(|e| {
                VaultError::Key(format!(
                    "cannot read the passphrase file `{}`: {e}",
                    path.display()
                ))
            })?,
            Self::Command(command) => run(command)?,
        };
        let line = text.lines().next().unwrap_or_default();
        if line.is_empty() {
            return Err(VaultError::Key(format!(
                "the passphrase from {} is empty",
                self.describe()
            )));
        }
        Ok(SecretString::from(line.to_owned()))
    }

    /// As errors name it.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Prompt => "the terminal".into(),
            Self::File(path) => format!("the file `{}`", path.display()),
            Self::Command(command) => format!("the command `{command}`"),
        }
    }
}

fn prompt(vault: &Path, confirm: bool) -> Result<String, VaultError> {
    if !std::io::stdin().is_terminal() {
        return Err(VaultError::NoKey {
            path: vault.to_owned(),
            reason: "standard input is not a terminal to ask for a passphrase on".into(),
        });
    }
    let ask = |prompt: String| {
        rpassword::prompt_password(prompt)
            .map_err(|e| VaultError::Key(format!("cannot ask on the terminal: {e}")))
    };
    let first = ask(format!("cairn: passphrase for `{}`: ", vault.display()))?;
    if confirm && ask("cairn: the same passphrase again: ".into())? != first {
        return Err(VaultError::Key(
            "the two passphrases differ; nothing was written".into(),
        ));
    }
    Ok(first)
}

fn run(command: &str) -> Result<String, VaultError> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::inherit())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| VaultError::Key(format!("cannot run `{command}`: {e}")))?;
    if !output.status.success() {
        return Err(VaultError::Key(format!(
            "the passphrase command `{command}` failed ({})",
            output.status
        )));
    }
    String::from_utf8(output.stdout).map_err(|_| {
        VaultError::Key(format!(
            "`{command}` printed a passphrase that is not UTF-8"
        ))
    })
}

#[cfg(test)]
mod tests {
    use age::secrecy::ExposeSecret;

    use super::*;

    #[test]
    fn a_file_or_a_command_gives_its_first_line_and_an_empty_one_is_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("pass");
        std::fs::write(&file, "correct horse\nsecond line\n").unwrap_or_else(|e| panic!("{e}"));
        let vault = Path::new("v.age");
        let read = PassphraseSource::File(file).read(vault, false);
        assert_eq!(
            read.map(|p| p.expose_secret().to_owned()).ok().as_deref(),
            Some("correct horse")
        );
        let read =
            PassphraseSource::Command("printf 'from a command\\n'".into()).read(vault, false);
        assert_eq!(
            read.map(|p| p.expose_secret().to_owned()).ok().as_deref(),
            Some("from a command")
        );
        let empty = PassphraseSource::Command("true".into()).read(vault, false);
        assert!(matches!(empty, Err(VaultError::Key(m)) if m.contains("is empty")));
        let failed = PassphraseSource::Command("exit 3".into()).read(vault, false);
        assert!(matches!(failed, Err(VaultError::Key(m)) if m.contains("failed")));
    }
}
