//! Every `secret(...)` param has a value before anything runs: given (`--param`), taken from
//! the vault, or a literal default that is not empty, and long enough to redact. A missing one
//! is refused at its `param` line, with the vault's nearest name when there is a vault (a typo
//! of the name is the likely cause): an empty default is no value, and running with `""` in
//! place of a password fails later and less clearly, or not at all.

use std::collections::BTreeMap;

use crate::VaultSecrets;

use crate::secrets::{REDACTED, too_short};
use crate::{Runbook, RunbookError};

/// Refuses the first secret param of `ast` that `params` does not give and whose literal
/// default is empty or too short to redact. A default that is no literal is checked when the
/// `param` line runs (`syntax.rs`); a given value was checked by `check_params`.
pub(crate) fn check_given(
    runbook: &Runbook,
    ast: &rhai::AST,
    params: &BTreeMap<String, String>,
    vault: Option<&VaultSecrets>,
) -> Result<(), RunbookError> {
    for (name, param) in crate::param_value::declared(ast) {
        let given = params.get(&name).is_some_and(|v| v != REDACTED);
        let Some(default) = param.default.filter(|_| param.secret && !given) else {
            continue;
        };
        let default = default.to_string();
        let (message, help) = if default.is_empty() {
            (
                format!("secret param `{name}` has no value: an empty default is none"),
                Some(where_to_give(&name, vault)),
            )
        } else if let Some(why) = too_short(&default) {
            (
                format!("secret param `{name}`'s default is refused: {why}"),
                None,
            )
        } else {
            continue;
        };
        return Err(runbook.error_at(message, param.position, help));
    }
    Ok(())
}

/// Where a missing secret param's value can come from: the vault's nearest name when a vault
/// was given, else `--vault` or `--param`.
fn where_to_give(name: &str, vault: Option<&VaultSecrets>) -> String {
    match vault {
        Some(vault) => {
            let near = crate::inventory::closest(name, vault.names())
                .map(|near| format!("did you mean `{near}`? "))
                .unwrap_or_default();
            format!(
                "{near}the vault `{}` holds no `{name}`: name the param as the vault's secret, add it with `cairn vault edit`, or give --param {name}=...",
                vault.path().display()
            )
        }
        None => format!(
            "give it from a vault holding `{name}` (--vault FILE, docs/vault.md) or with --param {name}=..."
        ),
    }
}
