//! What a run takes from `--vault`: the value of each `secret(...)` param the command line does
//! not give, by the param's name, and the SSH credentials that hosts' vars name
//! (`password_vault`, `identity_passphrase_vault`). Every value taken is registered with the
//! redactor before anything runs, so none reaches a journal, the run folder or the output; the
//! run keeps which vault it took them from ([`VaultUse`]), so its resume asks for that vault.
//!
//! [`VaultUse`] is kept in `run.json`, with what the run's resume still needs from the vault.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::VaultSecrets;
use serde::{Deserialize, Serialize};

use crate::inventory::Inventory;
use crate::secrets::{REDACTED, param_name, too_short, vault_name};
use crate::ssh::SshOptions;
use crate::{Runbook, RunbookError};

/// The vault a run took secrets from and their names (`param:NAME`, `vault:NAME`), never their
/// values: what `run.json` keeps so a resume asks for the vault, not for the values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultUse {
    /// The vault file, absolute.
    pub file: PathBuf,
    /// The names of the secrets taken from it.
    pub secrets: Vec<String>,
}

impl VaultUse {
    /// What a run took from `vault`: `None` when it took nothing.
    pub(crate) fn of(vault: Option<&VaultSecrets>, secrets: Vec<String>) -> Option<Self> {
        let vault = vault.filter(|_| !secrets.is_empty())?;
        let file = std::path::absolute(vault.path()).unwrap_or_else(|_| vault.path().to_owned());
        Some(Self { file, secrets })
    }
}

/// Fills the `secret(...)` params that `params` lacks (or holds only as `<redacted>`, as a
/// resumed run's `run.json` does) from the vault secrets of the same names; the names taken
/// from the vault. A vault value too short to redact, or not of the param's type, is refused
/// at the param. The values are registered as secrets with every other secret param's
/// (`CompiledRunbook::register_secrets`).
pub(crate) fn fill_secret_params(
    runbook: &Runbook,
    ast: &rhai::AST,
    params: &mut BTreeMap<String, String>,
    vault: Option<&VaultSecrets>,
) -> Result<Vec<String>, RunbookError> {
    let mut taken = Vec::new();
    for (name, param) in crate::param_value::declared(ast) {
        let given = params.get(&name).filter(|v| *v != REDACTED);
        let Some(value) = vault
            .and_then(|vault| vault.get(&name))
            .filter(|_| param.secret && given.is_none())
        else {
            continue;
        };
        let file = vault
            .map(|v| v.path().display().to_string())
            .unwrap_or_default();
        let from = format!("the vault `{file}`'s `{name}`");
        let wrong_type = param
            .default
            .as_ref()
            .and_then(|default| crate::param_value::convert(value, default).err());
        let refused = match (too_short(value), wrong_type) {
            (Some(why), _) => Some(format!("secret param `{name}` is refused: {from}: {why}")),
            (None, Some(expected)) => Some(format!(
                "secret param `{name}` takes {expected}, and {from} is not one"
            )),
            (None, None) => None,
        };
        if let Some(message) = refused {
            return Err(runbook.error_at(message, param.position, None));
        }
        params.insert(name.clone(), value.to_owned());
        taken.push(param_name(&name));
    }
    Ok(taken)
}

/// Checks the vault credentials of `hosts` before the run: a host var naming a secret without
/// `--vault`, one the vault lacks, or one too short to redact is refused; the ones found are
/// registered as secrets, their names returned.
pub(crate) fn check_credentials(
    inventory: &Inventory,
    hosts: &[String],
    vault: Option<&VaultSecrets>,
) -> Result<Vec<String>, String> {
    let mut taken = Vec::new();
    for spec in inventory.hosts().iter().filter(|s| hosts.contains(&s.name)) {
        let named = ["password_vault", "identity_passphrase_vault"]
            .iter()
            .any(|key| spec.vars.contains_key(*key));
        if !named {
            continue;
        }
        let options = SshOptions::for_host(&spec.vars, vault)
            .map_err(|e| format!("host `{}`: {e}", spec.name))?;
        for secret in [&options.vault_password, &options.vault_passphrase]
            .into_iter()
            .flatten()
        {
            if let Some(why) = too_short(&secret.value) {
                return Err(format!(
                    "host `{}`: the vault secret `{}` is refused: {why}",
                    spec.name, secret.name
                ));
            }
            crate::secrets::register(&vault_name(&secret.name), &secret.value);
            if !taken.contains(&vault_name(&secret.name)) {
                taken.push(vault_name(&secret.name));
            }
        }
    }
    Ok(taken)
}

/// Why a resume cannot go on without the vault its run took secrets from: the secrets it still
/// needs (a param not given again by `--param`, a host's credential), named with the vault
/// file; or, when a vault is given, the secret params it does not hold.
pub(crate) fn missing_for_resume(
    used: Option<&VaultUse>,
    params: &BTreeMap<String, String>,
    vault: Option<&VaultSecrets>,
) -> Option<(String, String)> {
    let used = used?;
    let still_needed = |name: &&String| match name.strip_prefix("param:") {
        Some(param) => params.get(param).is_some_and(|v| v == REDACTED),
        None => vault.is_none(),
    };
    let needed: Vec<&String> = used.secrets.iter().filter(still_needed).collect();
    if needed.is_empty() {
        return None;
    }
    let list = needed
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let file = used.file.display();
    Some(match vault {
        None => (
            format!(
                "the run took {list} from the vault `{file}`, and this resume was given no vault"
            ),
            format!(
                "give the vault again: --vault {file} (with its key: --vault-identity FILE, --vault-passphrase-file FILE or --vault-passphrase-command CMD)"
            ),
        ),
        Some(vault) => {
            let lacking = needed
                .first()
                .and_then(|n| n.strip_prefix("param:"))
                .unwrap_or_default();
            let near = crate::inventory::closest(lacking, vault.names())
                .map(|near| format!("did you mean `{near}`? "))
                .unwrap_or_default();
            (
                format!(
                    "the run took {list} from the vault `{file}`, and the vault `{}` holds no `{lacking}`",
                    vault.path().display()
                ),
                format!("{near}give the run's vault again: --vault {file}"),
            )
        }
    })
}
