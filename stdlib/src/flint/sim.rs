//! The simulated `flint`: the firmware image on an adapter's flash (FS4 layout), as the
//! firmware model (`mlxfwmanager`) keeps it.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::esxi::{Adapter, error, flag_value, not_found, ok, tools_loaded};
use crate::machine::host_hardware::find;

/// The `flint` tool model.
pub(crate) struct Flint;

impl SimTool for Flint {
    fn commands(&self) -> &[&'static str] {
        &["flint", "/opt/mellanox/bin/flint"]
    }

    fn name(&self) -> &'static str {
        "flint"
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        if !tools_loaded(host) {
            return not_found(argv.first().map_or("flint", String::as_str));
        }
        let Some(dev) = flag_value(argv, &["-d", "--device"]) else {
            return error(
                1,
                "-E- Missing device name. Please specify device (-d)\n".into(),
            );
        };
        let Some(adapter) = find(host, dev) else {
            return error(
                1,
                format!("-E- Cannot open Device: {dev}. No such file or directory. MFE_CR_ERROR\n"),
            );
        };
        if !argv.iter().any(|a| a == "query" || a == "q") {
            return error(1, "-E- No command given. See help for details.\n".into());
        }
        let (flashed, running) = crate::machine::firmware::images(host, &adapter);
        ok(query(&adapter, &flashed, &running))
    }
}

/// `FW Version(Running):` follows `FW Version:` while the flashed image waits for a boot or a
/// firmware reset, as flint prints it (mstflint `flint/subcommands.cpp`, the query's
/// `image_version != running_version` branch; `small_utils/mstfwreset.py`, `status_pending_fw`,
/// reads the line as "a pending image in flash").
fn query(adapter: &Adapter, fw: &str, running: &str) -> String {
    let kind = adapter.kind;
    // flint prints ROM versions without leading zeros: 3.6.0502 → 3.6.502.
    let rom = |v: &str| {
        v.split('.')
            .map(|p| p.trim_start_matches('0'))
            .map(|p| if p.is_empty() { "0" } else { p })
            .collect::<Vec<_>>()
            .join(".")
    };
    format!(
        "Image type:            FS4\nFW Version:            {fw}\n{}FW Release Date:       23.11.2021\nProduct Version:       {fw}\nRom Info:              type=UEFI version={} cpu=AMD64\n                       type=PXE version={} cpu=AMD64\nDescription:           UID                GuidsNumber\nBase GUID:             {}        4\nBase MAC:              {}            4\nImage VSD:             N/A\nDevice VSD:            N/A\nPSID:                  {}\nSecurity Attributes:   N/A\n",
        if running == fw {
            String::new()
        } else {
            format!("FW Version(Running):   {running}\n")
        },
        rom(kind.uefi),
        rom(kind.pxe),
        adapter.base_guid(),
        adapter.base_mac(),
        kind.psid
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_query_parses() {
        let adapters = crate::machine::esxi::parse_adapters("cx5@3b").unwrap_or_default();
        let cx5 = adapters.first().unwrap_or_else(|| panic!("no cx5"));
        let text = super::query(cx5, "16.32.1010", "16.32.1010");
        let parsed = crate::flint::parse_query(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(parsed.fw_version.as_deref(), Some("16.32.1010"));
        assert_eq!(parsed.fw_version_running, None);
        let pending = super::query(cx5, "16.35.2000", "16.32.1010");
        let pending =
            crate::flint::parse_query(&pending).unwrap_or_else(|e| panic!("{e}\n{pending}"));
        assert_eq!(
            (
                pending.fw_version.as_deref(),
                pending.fw_version_running.as_deref()
            ),
            (Some("16.35.2000"), Some("16.32.1010"))
        );
        assert_eq!(parsed.psid.as_deref(), Some("MT_0000000008"));
        assert_eq!(parsed.rom_info.len(), 2);
    }
}
