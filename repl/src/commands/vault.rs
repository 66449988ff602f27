//! `cairn vault create|edit|view|rekey|keygen`: the command line's keys as the vault crate's
//! key sources; the work is `cairn_vault`'s.

use std::path::PathBuf;
use std::process::ExitCode;

use cairn_vault::{KeySource, PassphraseSource};
use clap::{Args, Subcommand};

use crate::arg_groups::{VaultFile, VaultKeyArgs};

/// `cairn vault ACTION`.
#[derive(Debug, Args)]
pub(crate) struct VaultArgs {
    #[command(subcommand)]
    action: VaultAction,
}

/// `cairn vault ...`.
#[derive(Debug, Subcommand)]
enum VaultAction {
    /// Write a new vault: its secrets in $VISUAL or $EDITOR, in a private file on a memory file
    /// system removed after.
    Create(VaultFile),
    /// Change a vault's secrets in $VISUAL or $EDITOR; sealed again with the same key.
    Edit(VaultFile),
    /// Print a vault's secrets.
    View(VaultFile),
    /// Seal a vault with another key (`--new-identity`, `--new-passphrase-file`,
    /// `--new-passphrase-command`; none: a new passphrase asked on the terminal).
    Rekey {
        #[command(flatten)]
        vault: VaultFile,
        /// The new key: an age identity file.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["new_passphrase_file", "new_passphrase_command"])]
        new_identity: Option<PathBuf>,
        /// The new key: a passphrase, the first line of this file.
        #[arg(long, value_name = "FILE", conflicts_with = "new_passphrase_command")]
        new_passphrase_file: Option<PathBuf>,
        /// The new key: a passphrase, the first line this shell command prints.
        #[arg(long, value_name = "COMMAND")]
        new_passphrase_command: Option<String>,
    },
    /// Write a new age identity file (`0600`) to seal vaults with; prints its public key.
    Keygen {
        /// The identity file to write.
        file: PathBuf,
    },
}

impl VaultArgs {
    pub(crate) fn execute(self) -> miette::Result<ExitCode> {
        let told = match self.action {
            VaultAction::Create(vault) => cairn_vault::create(&vault.file, &vault.key.source())?,
            VaultAction::Edit(vault) => cairn_vault::edit(&vault.file, &vault.key.source())?,
            VaultAction::View(vault) => {
                cairn_vault::view(&vault.file, &vault.key.source(), &mut std::io::stdout())?;
                return Ok(ExitCode::SUCCESS);
            }
            VaultAction::Rekey {
                vault,
                new_identity,
                new_passphrase_file,
                new_passphrase_command,
            } => {
                let new = source(new_identity, new_passphrase_file, new_passphrase_command);
                cairn_vault::rekey(&vault.file, &vault.key.source(), &new)?
            }
            VaultAction::Keygen { file } => {
                let public = cairn_vault::keygen(&file)?;
                format!("wrote `{}`; public key: {public}", file.display())
            }
        };
        eprintln!("{told}");
        Ok(ExitCode::SUCCESS)
    }
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
