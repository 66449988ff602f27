//! The simulated `mlxfwmanager` (and the firmware `flint` reads): each adapter's firmware image,
//! the version available (the `fw_available` option, for the ConnectX-5), and online updates
//! that burn it (running after the next boot).

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use crate::machine::esxi::{Adapter, error, has, not_found, ok, tools_loaded};
use crate::machine::firmware_query::block;
use crate::machine::host_hardware::{adapters, find};

/// Seconds burning one device's firmware takes (docs/simulator.md, "Operation durations").
const FW_BURN_SECS: &str = "fw_burn_secs";

/// The `mlxfwmanager` tool model.
pub(crate) struct MlxfwmanagerTool;

/// What the firmware model remembers: the shared shape of the firmware activation contract
/// (`machine::firmware`), which `flint` and `mlxfwreset status` read.
pub(crate) use crate::machine::firmware::{FirmwareImages as FirmwareState, initial_fw};

/// The version an update would burn, if any.
fn available(host: &SimContext<'_>, adapter: &Adapter) -> Option<String> {
    host.option("fw_available")
        .filter(|_| adapter.kind.vpi)
        .map(str::to_owned)
}

impl SimTool for MlxfwmanagerTool {
    fn commands(&self) -> &[&'static str] {
        &["mlxfwmanager", "/opt/mellanox/bin/mlxfwmanager"]
    }

    fn name(&self) -> &'static str {
        "mlxfwmanager"
    }

    fn options(&self) -> &[&'static str] {
        &["fw_version", "fw_available", FW_BURN_SECS, FAULT_FIRMWARE]
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        if key == FAULT_FIRMWARE {
            return crate::machine::staged_faults::check_flag(value);
        }
        if key == FW_BURN_SECS {
            return crate::machine::durations::check(value);
        }
        Ok(())
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let mut state = FirmwareState::default();
        for adapter in adapters(host) {
            let fw = initial_fw(host, &adapter);
            state.flashed.insert(adapter.mst(), fw.clone());
            state.running.insert(adapter.mst(), fw);
        }
        let _ = host.save_state(&state);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let mut state: FirmwareState = host.load_state().unwrap_or_default();
        if !crate::machine::staged_faults::flag(host, FAULT_FIRMWARE) {
            state.running = state.flashed.clone();
        }
        // A boot activates every image: the resets before it are applied.
        crate::machine::firmware::take_resets(host, &mut state.resets_seen);
        let _ = host.save_state(&state);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        if !tools_loaded(host) {
            return not_found(argv.first().map_or("mlxfwmanager", String::as_str));
        }
        let mut state: FirmwareState = host.load_state().unwrap_or_default();
        // A firmware reset (`mlxfwreset`) since the last command runs the flashed image.
        for device in crate::machine::firmware::take_resets(host, &mut state.resets_seen) {
            if let Some(flashed) = state.flashed.get(&device).cloned() {
                state.running.insert(device, flashed);
            }
        }
        let dev = crate::machine::esxi::flag_value(argv, &["-d", "--dev"]);
        let selected: Vec<Adapter> = match dev {
            Some(dev) => match find(host, dev) {
                Some(adapter) => vec![adapter],
                None => return error(1, format!("-E- Failed to open device: {dev}\n")),
            },
            None => adapters(host),
        };
        let mut out = String::from("Querying Mellanox devices firmware ...\n");
        let mut to_update = Vec::new();
        for (i, adapter) in selected.iter().enumerate() {
            let current = state
                .flashed
                .get(&adapter.mst())
                .cloned()
                .unwrap_or_else(|| initial_fw(host, adapter));
            let newer = available(host, adapter);
            let status = match &newer {
                Some(v) if *v != current => {
                    to_update.push((i + 1, adapter.clone(), v.clone()));
                    "Update required"
                }
                Some(_) => "Up to date",
                None => "No matching image found",
            };
            let pci = dev.map_or_else(|| adapter.pci(0), str::to_owned);
            let text = block(i + 1, adapter, &pci, &current, newer.as_deref(), status);
            out.push_str(&with_running(
                text,
                &current,
                state.running.get(&adapter.mst()),
            ));
        }
        if has(argv, &["-u", "--update"]) {
            out.push_str("\n---------\n");
            if to_update.is_empty() {
                out.push_str("All listed device(s) firmware images are up to date.\n");
            } else {
                out.push_str(&format!(
                    "Found {} device(s) requiring firmware update...\n\n",
                    to_update.len()
                ));
                for (number, adapter, version) in to_update {
                    if !crate::machine::durations::take(host, FW_BURN_SECS) {
                        let _ = host.save_state(&state);
                        return ExecOutput {
                            code: 1,
                            stdout: out,
                            stderr: String::new(),
                        };
                    }
                    out.push_str(&format!(
                        "Device #{number}: Updating FW ...     \nFSMST_INITIALIZE -   OK          \nWriting Boot image component -   OK          \nDone\n"
                    ));
                    state.flashed.insert(adapter.mst(), version);
                }
                out.push_str("\nRestart needed for updates to take effect.\n");
            }
        }
        let _ = host.save_state(&state);
        ok(out)
    }
}

/// `fault_ignore_staged_firmware`: at boot the adapter keeps running its old firmware, as on a
/// server whose warm reboot does not reset the adapter: the burnt image waits for a reset that
/// loads it (MFT's mlxfwreset documentation: reset level 4 is a warm reboot, and the tool
/// "will display the supported reset levels and types that will ensure the loading of the new
/// firmware").
const FAULT_FIRMWARE: &str = "fault_ignore_staged_firmware";

/// A query block with the `FW (Running)` row mlxfwmanager adds under `FW` while the running
/// firmware is not the one on flash (a published BlueField-2 query:
/// <https://github.com/lachen-nv/bare-metal-manager-core/blob/4e6e4b9f5ff3795a7bd2685e8cdae0f4f040e3b1/book/src/playbooks/stuck_objects/adding_new_machines.md>).
fn with_running(block: String, flashed: &str, running: Option<&String>) -> String {
    let Some(running) = running.filter(|r| r.as_str() != flashed) else {
        return block;
    };
    let mut out = String::with_capacity(block.len() + 48);
    for line in block.split_inclusive('\n') {
        out.push_str(line);
        if line.starts_with("     FW ") {
            out.push_str(&format!("     FW (Running)   {running:<15}{:<14}\n", "N/A"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_reads_as_the_guides_device() {
        let adapters = crate::machine::esxi::parse_adapters("cx4lx@1a,cx5@3b").unwrap_or_default();
        let cx5 = adapters.get(1).unwrap_or_else(|| panic!("no cx5"));
        let text = format!(
            "Querying Mellanox devices firmware ...\n{}",
            block(
                1,
                cx5,
                "3b:00.0",
                "16.32.1010",
                None,
                "No matching image found"
            )
        );
        let parsed =
            crate::grammar::mlxfwmanager::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let device = parsed
            .devices
            .first()
            .unwrap_or_else(|| panic!("no device"));
        assert_eq!(device.psid.as_deref(), Some("MT_0000000008"));
        assert_eq!(device.part_number.as_deref(), Some("MCX556A-ECA_Ax"));
        assert_eq!(device.status.as_deref(), Some("No matching image found"));
        let fw = device
            .versions
            .first()
            .unwrap_or_else(|| panic!("no versions"));
        assert_eq!(fw.current.as_deref(), Some("16.32.1010"));
        assert_eq!(fw.available, None);
    }

    #[test]
    fn a_burnt_image_not_running_yet_adds_the_running_row_the_parser_reads() {
        let adapters = crate::machine::esxi::parse_adapters("cx5@3b").unwrap_or_default();
        let cx5 = adapters.first().unwrap_or_else(|| panic!("no cx5"));
        let running = "16.32.1010".to_owned();
        let text = format!(
            "Querying Mellanox devices firmware ...\n{}",
            with_running(
                block(
                    1,
                    cx5,
                    "3b:00.0",
                    "16.35.2000",
                    None,
                    "No matching image found"
                ),
                "16.35.2000",
                Some(&running),
            )
        );
        let parsed =
            crate::grammar::mlxfwmanager::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let versions = &parsed
            .devices
            .first()
            .unwrap_or_else(|| panic!("no device"))
            .versions;
        let rows: Vec<(&str, Option<&str>)> = versions
            .iter()
            .map(|v| (v.component.as_str(), v.current.as_deref()))
            .collect();
        assert_eq!(
            rows.get(..2),
            Some(
                &[
                    ("FW", Some("16.35.2000")),
                    ("FW (Running)", Some("16.32.1010"))
                ][..]
            )
        );
        let same = with_running(
            String::from("     FW             x\n"),
            "x",
            Some(&"x".to_owned()),
        );
        assert!(!same.contains("Running"), "no row once it runs");
    }
}
