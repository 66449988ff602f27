//! The reboot-loop breaker's check for `ofed::install` and `ofed::install_doca`: the new
//! drivers load only at the next boot, so after it `openibd status` must answer `HCA driver
//! loaded`. A guest whose kernel did not load them (modules built for another kernel ABI do
//! not load) fails with what openibd said, instead of a runbook installing and rebooting again.

use std::sync::Arc;

use crate::action::{self, Probe};
use crate::ofed::{OfedChange, command};
use cairn_runtime::ExecRequest;

/// After the install's reboot, the drivers of the installed version are loaded; `None` when
/// nothing was installed (the drivers load only at the boot after an install).
pub(super) fn drivers_after_boot(change: &OfedChange) -> Option<Probe> {
    if !change.changed {
        return None;
    }
    let version = change.version.clone();
    Some(Probe {
        what: format!("ofed {version} drivers"),
        check: Arc::new(move |io| {
            let output = io.exec(&ExecRequest::new([command::OPENIBD, "status"]))?;
            let loaded = output.code == 0
                && output
                    .stdout
                    .lines()
                    .any(|line| line.trim() == "HCA driver loaded");
            if loaded {
                return Ok(None);
            }
            let said = output
                .stdout
                .lines()
                .map(str::trim)
                .find(|line| !line.is_empty())
                .unwrap_or("nothing");
            Ok(Some(action::not_applied(
                io,
                format!("ofed {version} HCA driver"),
                format!("not loaded (`openibd status`: {said})"),
                "the kernel did not load the installed OFED modules (modules built for another \
                 kernel ABI do not load; mlnx_add_kernel_support.sh rebuilds them)",
            )))
        }),
    })
}
