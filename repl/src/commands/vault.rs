//! `cairn vault create|edit|view|rekey|keygen`: the command line's keys as the vault crate's
//! key sources; the work is `cairn_vault`'s.

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_vault::{KeySource, PassphraseSource};

use crate::cli::{VaultAction, VaultKeyArgs};

pub(crate) fn vault(action: VaultAction) -> miette::Result<ExitCode> {
    let told = match action {
        VaultAction::Create { file, key } => cairn_vault::create(&file, &key.source())?,
        VaultAction::Edit { file, key } => cairn_vault::edit(&file, &key.source())?,
        VaultAction::View { file, key } => {
            cairn_vault::view(&file, &key.source(), &mut std::io::stdout())?;
            return Ok(ExitCode::SUCCESS);
        }
        VaultAction::Rekey {
            file,
            key,
            new_identity,
            new_passphrase_file,
            new_passphrase_command,
        } => {
            let new = source(new_identity, new_passphrase_file, new_passphrase_command);
            cairn_vault::rekey(&file, &key.source(), &new)?
        }
        VaultAction::Keygen { file } => {
            let public = cairn_vault::keygen(&file)?;
            format!("wrote `{}`; public key: {public}", file.display())
        }
    };
    eprintln!("{told}");
    Ok(ExitCode::SUCCESS)
}

impl VaultKeyArgs {
    /// The key these options name.
    pub(crate) fn source(&self) -> KeySource {
        source(
            self.vault_identity.clone(),
            self.vault_passphrase_file.clone(),
            self.vault_passphrase_command.clone(),
        )
    }
}

fn source(identity: Option<PathBuf>, file: Option<PathBuf>, command: Option<String>) -> KeySource {
    match (identity, file, command) {
        (Some(identity), ..) => KeySource::Identity(identity),
        (None, Some(file), _) => KeySource::Passphrase(PassphraseSource::File(file)),
        (None, None, Some(command)) => KeySource::Passphrase(PassphraseSource::Command(command)),
        (None, None, None) => KeySource::Passphrase(PassphraseSource::Prompt),
    }
}
