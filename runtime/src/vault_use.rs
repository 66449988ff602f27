//! What a run takes from `--vault`: the value of each `secret(...)` param the command line does
//! not give, by the param's name, and the SSH credentials that hosts' vars name
//! (`password_vault`, `identity_passphrase_vault`). Every value taken is registered with the
//! redactor before anything runs, so none reaches a journal, the run folder or the output.

use std::collections::BTreeMap;

use cairn_vault::Vault;

use crate::inventory::Inventory;
use crate::outline::Outline;
use crate::ssh::SshOptions;

/// Fills the `secret(...)` params that `params` lacks (or holds only as `<redacted>`, as a
/// resumed run's `run.json` does) from the vault secrets of the same names.
pub(crate) fn fill_secret_params(
    outline: &Outline,
    params: &mut BTreeMap<String, String>,
    vault: Option<&Vault>,
) {
    let Some(vault) = vault else {
        return;
    };
    for param in outline.params.iter().filter(|p| p.secret) {
        let given = params
            .get(&param.name)
            .is_some_and(|v| v != crate::secrets::REDACTED);
        if let (false, Some(value)) = (given, vault.get(&param.name)) {
            crate::secrets::register(value);
            params.insert(param.name.clone(), value.to_owned());
        }
    }
}

/// Checks the vault credentials of `hosts` before the run: a host var naming a secret without
/// `--vault`, or one the vault lacks, is refused; the ones found are registered as secrets.
pub(crate) fn check_credentials(
    inventory: &Inventory,
    hosts: &[String],
    vault: Option<&Vault>,
) -> Result<(), String> {
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
            crate::secrets::register(&secret.value);
        }
    }
    Ok(())
}
