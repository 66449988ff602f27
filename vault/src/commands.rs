//! `cairn vault create|edit|view|rekey|keygen FILE`. Each returns what to tell the operator
//! (never a secret); `view` writes the plaintext where it is asked to.

use std::io::{BufRead, IsTerminal, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use age::secrecy::{ExposeSecret, SecretString};

use crate::{KeySource, VaultError, VaultKey, private_edit, sealed_file, secrets_text};

/// A new vault at `path`, its secrets written in the editor, sealed with `key`.
pub fn create(path: &Path, key: &KeySource) -> Result<String, VaultError> {
    if path.exists() {
        return Err(VaultError::File {
            message: format!("`{}` exists; nothing was written", path.display()),
            help: Some(format!(
                "change it with `cairn vault edit {}`",
                path.display()
            )),
        });
    }
    let key = key.key(path, true)?;
    let text = edit_until_valid(path, secrets_text::TEMPLATE)?;
    sealed_file::seal(path, &key, &text)?;
    Ok(format!(
        "created `{}` ({}), sealed with {}",
        path.display(),
        count(path, &text)?,
        key.describe()
    ))
}

/// The secrets of `path` changed in the editor, sealed again with the key that opened them.
pub fn edit(path: &Path, key: &KeySource) -> Result<String, VaultError> {
    let (key, plaintext) = open_existing(path, key)?;
    let text = edit_until_valid(path, plaintext.expose_secret())?;
    if text == plaintext.expose_secret() {
        return Ok(format!("`{}` is unchanged", path.display()));
    }
    sealed_file::seal(path, &key, &text)?;
    Ok(format!(
        "saved `{}` ({})",
        path.display(),
        count(path, &text)?
    ))
}

/// Writes the plaintext of `path` to `out`.
pub fn view(path: &Path, key: &KeySource, out: &mut dyn Write) -> Result<(), VaultError> {
    let (_, plaintext) = open_existing(path, key)?;
    out.write_all(plaintext.expose_secret().as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| VaultError::io("print", path, e))
}

/// `path` sealed again with `new` instead of `old`.
pub fn rekey(path: &Path, old: &KeySource, new: &KeySource) -> Result<String, VaultError> {
    let (old, plaintext) = open_existing(path, old)?;
    let new = new.key(path, true)?;
    sealed_file::seal(path, &new, plaintext.expose_secret())?;
    Ok(format!(
        "`{}` was sealed with {}, now with {}",
        path.display(),
        old.describe(),
        new.describe()
    ))
}

/// A new age identity file at `path` (`0600`); returns its public key.
pub fn keygen(path: &Path) -> Result<String, VaultError> {
    let identity = age::x25519::Identity::generate();
    let public = identity.to_public().to_string();
    let text = format!(
        "# a cairn vault identity\n# public key: {public}\n{}\n",
        identity.to_string().expose_secret()
    );
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|e| VaultError::io("create", path, e))?;
    Ok(public)
}

fn open_existing(path: &Path, key: &KeySource) -> Result<(VaultKey, SecretString), VaultError> {
    VaultError::must_exist(path)?;
    let key = key.key(path, false)?;
    let plaintext = sealed_file::open(path, &key)?;
    Ok((key, plaintext))
}

/// The editor's text once it parses; on a terminal a text that does not is offered to the
/// editor again, elsewhere refused.
fn edit_until_valid(path: &Path, start: &str) -> Result<String, VaultError> {
    let mut text = private_edit::edit(start)?;
    loop {
        let Err(error) = secrets_text::parse(path, &text) else {
            return Ok(text);
        };
        if !std::io::stdin().is_terminal() || !again(&error) {
            return Err(error);
        }
        text = private_edit::edit(&text)?;
    }
}

fn again(error: &VaultError) -> bool {
    eprint!("cairn: {error}\ncairn: edit again? [Y/n] ");
    let mut answer = String::new();
    let read = std::io::stdin().lock().read_line(&mut answer);
    read.is_ok_and(|n| n > 0) && !answer.trim().eq_ignore_ascii_case("n")
}

fn count(path: &Path, text: &str) -> Result<String, VaultError> {
    let n = secrets_text::parse(path, text)?.len();
    Ok(format!("{n} secret{}", if n == 1 { "" } else { "s" }))
}
