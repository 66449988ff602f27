//! A vault: named secrets (SSH and vCenter passwords, a BMC's password, tokens) in one
//! encrypted file kept beside the runbooks, so a site can keep them in the runbooks'
//! repository. The file is an ASCII-armored age file (<https://age-encryption.org/v1>, through
//! the `age` crate) whose plaintext is a TOML table of strings:
//!
//! ```toml
//! esx-root = "the ESXi root password"
//! bmc_password = "..."
//! ```
//!
//! It opens with an age identity file (X25519) or a passphrase (scrypt), asked on the
//! terminal or read from a file or a command. Nothing here writes a plaintext to disk: an edit
//! happens in a `0600` file in a private folder on a memory file system (`private_edit`).

mod commands;
mod passphrase;
mod private_edit;
mod sealed_file;
mod secrets_text;
mod vault;
mod vault_error;
mod vault_key;

pub use commands::{create, edit, keygen, rekey, view};
pub use passphrase::PassphraseSource;
pub use vault::Vault;
pub use vault_error::VaultError;
pub use vault_key::{KeySource, VaultKey};
