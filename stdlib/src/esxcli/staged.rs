//! The reboot-loop breaker's checks for what esxcli stages for the next boot: after that
//! reboot, the VIBs an install added are in the image, and a module's parameters are the ones
//! set. A change that did not take fails the host with what the host shows instead, rather than
//! a runbook installing or setting it again and rebooting in a loop.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::reads::{self, VibChange};
use crate::action::{self, Probe};

/// After `esxcli::vib_install`'s reboot: each VIB it installed (`vibs_installed` in its
/// record, `MEL_bootbank_mft_4.22.1.11-10EM.703.0.0.18644231`) is in `vib list` at that
/// version. `None` when it installed nothing, esxcli said no reboot is required, or the
/// outcome was assumed done (no record).
pub(super) fn vibs_after_boot(change: &VibChange) -> Option<Probe> {
    if !change.reboot_required {
        return None;
    }
    let wanted: Vec<(String, String)> = change
        .record
        .as_ref()?
        .vibs_installed
        .iter()
        .filter_map(|id| name_and_version(id))
        .collect();
    if wanted.is_empty() {
        return None;
    }
    let names: Vec<&str> = wanted.iter().map(|(name, _)| name.as_str()).collect();
    let what = format!("esxcli VIB {}", names.join(" "));
    Some(Probe {
        what,
        check: Arc::new(move |io| {
            let image = reads::vibs(io)?;
            for (name, version) in &wanted {
                let seen = match image.iter().find(|vib| vib.name == *name) {
                    Some(vib) if vib.version == *version => continue,
                    Some(vib) => format!("at {}", vib.version),
                    None => "not in the image".to_owned(),
                };
                return Ok(Some(action::not_applied(
                    io,
                    format!("esxcli VIB {name} {version}"),
                    seen,
                    "the host booted without the installed image (a stateless host boots its \
                     predefined image every time)",
                )));
            }
            Ok(None)
        }),
    })
}

/// `VENDOR_bootbank_NAME_VERSION` → (name, version), as esxcli names an installed VIB.
fn name_and_version(id: &str) -> Option<(String, String)> {
    let (_, rest) = id.split_once("_bootbank_")?;
    let (name, version) = rest.rsplit_once('_')?;
    Some((name.to_owned(), version.to_owned()))
}

/// After `esxcli::module_parameters_set`'s reboot: the module's parameters are `wanted`.
pub(super) fn parameters_after_boot(module: String, wanted: BTreeMap<String, String>) -> Probe {
    Probe {
        what: format!("esxcli {module} module parameters"),
        check: Arc::new(move |io| {
            let now = reads::parameters_set(&reads::module_parameters(io, &module)?);
            if now == wanted {
                return Ok(None);
            }
            let seen = if now.is_empty() {
                "empty".to_owned()
            } else {
                let pairs: Vec<String> = now.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("`{}`", pairs.join(" "))
            };
            Ok(Some(action::not_applied(
                io,
                format!("esxcli {module} module parameters"),
                seen,
                "the host did not keep them across the reboot (a stateless host keeps module \
                 parameters only through a host profile)",
            )))
        }),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_installed_vib_names_its_name_and_version() {
        assert_eq!(
            super::name_and_version("MEL_bootbank_nmlx5-core_4.21.71.101-1OEM.703.0.0.18644231"),
            Some((
                "nmlx5-core".to_owned(),
                "4.21.71.101-1OEM.703.0.0.18644231".to_owned()
            ))
        );
        assert_eq!(super::name_and_version("no-id"), None);
    }
}
