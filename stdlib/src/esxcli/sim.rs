//! The simulated `esxcli`: VIBs, driver module parameters, advanced settings, PCI passthrough,
//! NICs and maintenance mode of an ESXi 7 host, printed in esxcli's own layouts.
//!
//! VIBs installed take effect at the next boot: the MFT tools (`mst`, `mlxconfig`, ...) exist
//! only once the `mft` and `nmst` VIBs were in the image when the host booted.

use std::collections::BTreeMap;

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{SimContext, SimTool};

use super::sim_maintenance::{maintenance_set, shutdown_reboot};
use super::sim_state::{Advanced, EsxcliState, SimVib, parse_bool};
use crate::machine::esxi::{
    MFT_MARK, NMST_MARK, error, flag_value, has, ok, preset_passthrough, table,
};
use crate::machine::host_hardware::ports;

/// The `esxcli` tool model.
pub(crate) struct Esxcli;

/// `nmlx5_core`'s parameters: name, type, description.
const NMLX5_PARAMETERS: &[(&str, &str, &str)] = &[
    (
        "DRSS",
        "ushort",
        "Number of hardware queues for Default Queue (DEFQ) RSS. Note that this value must be a power of 2 and ranges from 1 to 16.",
    ),
    (
        "RSS",
        "ushort",
        "Number of hardware queues for NetQ RSS. Note that this value must be a power of 2 and ranges from 1 to 8.",
    ),
    (
        "enable_nmlx_debug",
        "int",
        "Enables debug prints for the core module.",
    ),
    ("geneve_offload_enable", "int", "Enables GENEVE HW Offload."),
    (
        "max_vfs",
        "array of int",
        "max_vfs - Number of Virtual Functions per port. Values range from 0 to 127, comma separated.",
    ),
    (
        "num_rings_per_rss_queue",
        "int",
        "Number of rings for each RSS queue. Values: 1-8 (default 4).",
    ),
    ("pfcrx", "int", "Priority based Flow Control policy on RX."),
    ("pfctx", "int", "Priority based Flow Control policy on TX."),
    (
        "supported_num_ports",
        "int",
        "Sets the maximum supported ports.",
    ),
];

/// What the guide clears: SR-IOV virtual functions configured in the native driver.
const NMLX5_DEFAULT: &str = "max_vfs=8,8";

fn default_state() -> EsxcliState {
    let vib = |name: &str, version: &str, vendor: &str, level: &str| SimVib {
        name: name.into(),
        version: version.into(),
        vendor: vendor.into(),
        acceptance_level: level.into(),
        install_date: "2026-11-01".into(),
    };
    let advanced = BTreeMap::from([
        (
            "/Power/CpuPolicy".to_owned(),
            Advanced {
                int: None,
                default_int: None,
                min: 0,
                max: 0,
                string: Some("Balanced".into()),
                default_string: Some("Balanced".into()),
                description: "CPU power management policy: High Performance, Balanced, Low Power, Custom".into(),
            },
        ),
        (
            "/Net/NetNetqNumaIOCpuPinThreshold".to_owned(),
            Advanced {
                int: Some(0),
                default_int: Some(0),
                min: 0,
                max: 200,
                string: None,
                default_string: None,
                description: "Threshold (in percentage) at which NUMA IO CPU pinning of netq threads is dropped".into(),
            },
        ),
    ]);
    EsxcliState {
        vibs: vec![
            vib(
                "esx-base",
                "7.0.3-0.20.19193900",
                "VMware",
                "VMwareCertified",
            ),
            vib(
                "nmlx5-core",
                "4.19.70.1-1vmw.703.0.0.18644231",
                "VMW",
                "VMwareCertified",
            ),
            vib(
                "nmlx5-rdma",
                "4.19.70.1-1vmw.703.0.0.18644231",
                "VMW",
                "VMwareCertified",
            ),
        ],
        module_parameters: BTreeMap::from([("nmlx5_core".to_owned(), NMLX5_DEFAULT.to_owned())]),
        advanced,
        passthru: BTreeMap::new(),
        maintenance: false,
        booted: None,
    }
}

/// What sections 2.2 to 2.3 of the guide leave in the image and the settings: the MFT and NMST
/// VIBs, the native driver of 2.2.2, `nmlx5_core` without parameters, power policy High
/// Performance (the passthrough itself is set per port by `init`).
fn apply_passthrough_preset(state: &mut EsxcliState) {
    for (source, depot) in [
        ("mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib", false),
        ("nmst-4.22.1.11-1OEM.703.0.0.18644231.x86_64.vib", false),
        (
            "Mellanox-nmlx5_4.21.71.101-1OEM.702.0.0.17473468_18203393.zip",
            true,
        ),
    ] {
        for vib in vibs_of(source, depot).unwrap_or_default() {
            state.vibs.retain(|v| v.name != vib.name);
            state.vibs.push(vib);
        }
    }
    state
        .module_parameters
        .insert("nmlx5_core".to_owned(), String::new());
    if let Some(policy) = state.advanced.get_mut("/Power/CpuPolicy") {
        policy.string = Some("High Performance".to_owned());
    }
}

impl SimTool for Esxcli {
    fn commands(&self) -> &[&'static str] {
        &["esxcli"]
    }

    fn options(&self) -> &[&'static str] {
        &[
            "adapters",
            VIB_INSTALL_SECS,
            crate::machine::host_vms::VCENTER_OPTION,
            super::sim_boot_faults::FAULT_VIBS,
            super::sim_boot_faults::FAULT_MODULE_PARAMETERS,
        ]
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        if super::sim_boot_faults::owns(key) {
            return crate::machine::staged_faults::check_names(value);
        }
        if key == VIB_INSTALL_SECS {
            return crate::machine::durations::check(value);
        }
        if key == "adapters" {
            crate::machine::esxi::parse_adapters(value)
                .map_err(|why| format!("KIND@BUS,... such as cx4lx@1a,cx5@3b ({why})"))?;
        }
        Ok(())
    }

    fn init(&self, host: &mut SimContext<'_>) {
        let mut state = default_state();
        let preset = preset_passthrough(host);
        for (adapter, function) in ports(host) {
            let enabled = preset && adapter.kind.vpi;
            state.passthru.insert(adapter.full_pci(function), enabled);
        }
        if preset {
            apply_passthrough_preset(&mut state);
        }
        super::sim_boot_faults::at_boot(host, &mut state);
        let _ = host.save_state(&state);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        let state = match host.load_state::<EsxcliState>() {
            Ok(mut state) => {
                super::sim_boot_faults::at_boot(host, &mut state);
                let _ = host.save_state(&state);
                state
            }
            Err(_) => EsxcliState::default(),
        };
        let has_vib = |name: &str| state.vibs.iter().any(|v| v.name == name);
        if has_vib("mft") {
            host.mark(MFT_MARK);
        } else {
            host.unmark(MFT_MARK);
        }
        if has_vib("nmst") {
            host.mark(NMST_MARK);
        } else {
            host.unmark(NMST_MARK);
        }
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let mut state: EsxcliState = host.load_state().unwrap_or_else(|_| default_state());
        let words: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
        let output = match words.as_slice() {
            ["software", "vib", "list", ..] => vib_list(&state),
            ["software", "vib", "install" | "update", ..] => vib_install(host, &mut state, argv),
            ["system", "module", "parameters", "list", ..] => module_list(&state, argv),
            ["system", "module", "parameters", "set", ..] => module_set(&mut state, argv),
            ["system", "settings", "advanced", "list", ..] => advanced_list(&state, argv),
            ["system", "settings", "advanced", "set", ..] => advanced_set(&mut state, argv),
            ["hardware", "pci", "pcipassthru", "list", ..] => passthru_list(&state),
            ["hardware", "pci", "pcipassthru", "set", ..] => passthru_set(&mut state, argv),
            ["network", "nic", "list", ..] => nic_list(host, &state),
            ["system", "maintenanceMode", "get", ..] => ok(if state.maintenance {
                "Enabled\n".into()
            } else {
                "Disabled\n".into()
            }),
            ["system", "maintenanceMode", "set", ..] => maintenance_set(host, &mut state, argv),
            ["system", "shutdown", "reboot", ..] => shutdown_reboot(host, &state, argv),
            _ => error(
                1,
                format!("Error: Unknown command or namespace {}\n", words.join(" ")),
            ),
        };
        let _ = host.save_state(&state);
        output
    }
}

fn vib_list(state: &EsxcliState) -> ExecOutput {
    let rows: Vec<Vec<String>> = state
        .vibs
        .iter()
        .map(|v| {
            vec![
                v.name.clone(),
                v.version.clone(),
                v.vendor.clone(),
                v.acceptance_level.clone(),
                v.install_date.clone(),
            ]
        })
        .collect();
    ok(table(
        &[
            "Name",
            "Version",
            "Vendor",
            "Acceptance Level",
            "Install Date",
        ],
        &rows,
    ))
}

/// The VIBs a file or depot holds, from its name: `mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib`
/// is `mft` version `4.22.1.11-10EM-703.0.0.18644231`; a depot with `nmlx5` in its name
/// (`Mellanox-nmlx5_4.21.71.101-1OEM.702.0.0.17473468_18203393.zip`) holds the native driver.
fn vibs_of(source: &str, depot: bool) -> Result<Vec<SimVib>, String> {
    let base = source.rsplit('/').next().unwrap_or(source);
    let vib = |name: &str, version: &str| SimVib {
        name: name.into(),
        version: version.into(),
        vendor: "MEL".into(),
        acceptance_level: "PartnerSupported".into(),
        install_date: "2026-11-30".into(),
    };
    if depot {
        let Some(rest) = base.split_once("nmlx5_").map(|(_, rest)| rest) else {
            return Err(format!(
                " [MetadataDownloadError]\n Could not download from depot at zip:{source}?index.xml, skipping (('zip:{source}?index.xml', '', \"Error extracting index.xml from {source}: [Errno 2] No such file or directory\"))\n url = zip:{source}?index.xml\n Please refer to the log file for more details.\n"
            ));
        };
        let version = rest
            .split('_')
            .next()
            .unwrap_or(rest)
            .trim_end_matches(".zip");
        return Ok(vec![vib("nmlx5-core", version), vib("nmlx5-rdma", version)]);
    }
    let stem = base.trim_end_matches(".vib").trim_end_matches(".x86_64");
    let stem = stem.strip_prefix("MEL_bootbank_").unwrap_or(stem);
    match stem.split_once(['-', '_']) {
        Some((name, version)) if !name.is_empty() && !version.is_empty() => {
            Ok(vec![vib(name, version)])
        }
        _ => Err(format!(
            " [VibFormatError]\n Error parsing VIB file {source}: no name and version in its file name\n Please refer to the log file for more details.\n"
        )),
    }
}

/// Seconds a VIB install that changes the image takes (docs/simulator.md, "Operation durations").
const VIB_INSTALL_SECS: &str = "vib_install_secs";

fn vib_install(host: &mut SimContext<'_>, state: &mut EsxcliState, argv: &[String]) -> ExecOutput {
    let dry_run = has(argv, &["--dry-run"]);
    let (source, depot) = match (
        flag_value(argv, &["-v", "--viburl"]),
        flag_value(argv, &["-d", "--depot"]),
    ) {
        (Some(vib), _) => (vib, false),
        (None, Some(depot)) => (depot, true),
        (None, None) => {
            return error(
                1,
                "Error: At least one of --depot or --viburl must be given\n".into(),
            );
        }
    };
    let vibs = match vibs_of(source, depot) {
        Ok(vibs) => vibs,
        Err(message) => return error(1, message),
    };
    let (mut installed, mut removed, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    let mut image = state.vibs.clone();
    for vib in vibs {
        match image.iter().position(|v| v.name == vib.name) {
            Some(i) if image.get(i).is_some_and(|v| v.version == vib.version) => skipped.push(vib),
            Some(i) => {
                removed.push(image.remove(i));
                installed.push(vib.clone());
                image.push(vib);
            }
            None => {
                installed.push(vib.clone());
                image.push(vib);
            }
        }
    }
    if let Some(refusal) =
        super::sim_maintenance::install_refusal(state, argv, &removed, &installed)
    {
        return refusal;
    }
    let ids = |vibs: &[SimVib]| vibs.iter().map(SimVib::id).collect::<Vec<_>>();
    let (installed, removed, skipped) = (ids(&installed), ids(&removed), ids(&skipped));
    let changed = !installed.is_empty();
    let message = match (dry_run, changed) {
        (true, _) => {
            "Dryrun only, host not changed. The following installers will be applied: [BootBankInstaller]"
        }
        (false, true) => {
            "The update completed successfully, but the system needs to be rebooted for the changes to be effective."
        }
        (false, false) => "Host is not changed.",
    };
    if !dry_run {
        if changed && !crate::machine::durations::take(host, VIB_INSTALL_SECS) {
            return error(1, String::new());
        }
        state.vibs = image;
    }
    ok(format!(
        "Installation Result\n   Message: {message}\n   Reboot Required: {changed}\n   VIBs Installed: {}\n   VIBs Removed: {}\n   VIBs Skipped: {}\n",
        installed.join(", "),
        removed.join(", "),
        skipped.join(", ")
    ))
}

/// `name=value` pairs of a `-p` string.
pub(crate) fn parameter_pairs(text: &str) -> BTreeMap<String, String> {
    text.split_whitespace()
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn module_list(state: &EsxcliState, argv: &[String]) -> ExecOutput {
    let Some(module) = flag_value(argv, &["-m", "--module"]) else {
        return error(1, "Error: Missing required parameter -m|--module\n".into());
    };
    if module != "nmlx5_core" {
        return error(1, format!("Unable to find module {module}\n"));
    }
    let values = parameter_pairs(
        state
            .module_parameters
            .get(module)
            .map_or("", String::as_str),
    );
    let rows: Vec<Vec<String>> = NMLX5_PARAMETERS
        .iter()
        .map(|(name, kind, description)| {
            vec![
                (*name).to_owned(),
                (*kind).to_owned(),
                values.get(*name).cloned().unwrap_or_default(),
                (*description).to_owned(),
            ]
        })
        .collect();
    ok(table(&["Name", "Type", "Value", "Description"], &rows))
}

fn module_set(state: &mut EsxcliState, argv: &[String]) -> ExecOutput {
    let Some(module) = flag_value(argv, &["-m", "--module"]) else {
        return error(1, "Error: Missing required parameter -m|--module\n".into());
    };
    if module != "nmlx5_core" {
        return error(1, format!("Unable to find module {module}\n"));
    }
    let Some(text) = flag_value(argv, &["-p", "--parameter-string"]) else {
        return error(
            1,
            "Error: Missing required parameter -p|--parameter-string\n".into(),
        );
    };
    for name in parameter_pairs(text).keys() {
        if !NMLX5_PARAMETERS.iter().any(|(n, _, _)| n == name) {
            return error(1, format!("Unknown parameter {name} for module {module}\n"));
        }
    }
    let value = if has(argv, &["-a", "--append"]) {
        let mut pairs = parameter_pairs(
            state
                .module_parameters
                .get(module)
                .map_or("", String::as_str),
        );
        pairs.extend(parameter_pairs(text));
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        text.trim().to_owned()
    };
    state.module_parameters.insert(module.to_owned(), value);
    ok(String::new())
}

fn advanced_record(path: &str, option: &Advanced) -> String {
    let number = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
    let is_int = option.int.is_some();
    format!(
        "   Path: {path}\n   Type: {}\n   Int Value: {}\n   Default Int Value: {}\n   Min Value: {}\n   Max Value: {}\n   String Value: {}\n   Default String Value: {}\n   Valid Characters:\n   Description: {}\n   Host Specific: false\n   Impact: none\n",
        if is_int { "integer" } else { "string" },
        number(option.int.or(Some(0))),
        number(option.default_int.or(Some(0))),
        option.min,
        option.max,
        option.string.clone().unwrap_or_default(),
        option.default_string.clone().unwrap_or_default(),
        option.description
    )
}

fn advanced_list(state: &EsxcliState, argv: &[String]) -> ExecOutput {
    match flag_value(argv, &["-o", "--option"]) {
        Some(path) => match state.advanced.get(path) {
            Some(option) => ok(advanced_record(path, option)),
            None => error(1, format!("Unable to find option {path}\n")),
        },
        None => ok(state
            .advanced
            .iter()
            .map(|(path, option)| advanced_record(path, option))
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

fn advanced_set(state: &mut EsxcliState, argv: &[String]) -> ExecOutput {
    let Some(path) = flag_value(argv, &["-o", "--option"]) else {
        return error(1, "Error: Missing required parameter -o|--option\n".into());
    };
    let Some(option) = state.advanced.get_mut(path) else {
        return error(1, format!("Unable to find option {path}\n"));
    };
    if let Some(value) = flag_value(argv, &["-i", "--int-value"]) {
        let Some(number) = value.parse::<i64>().ok().filter(|_| option.int.is_some()) else {
            return error(1, format!("Invalid value {value} for option {path}\n"));
        };
        if number < option.min || number > option.max {
            return error(
                1,
                format!(
                    "Invalid value {number} for option {path}: must be between {} and {}\n",
                    option.min, option.max
                ),
            );
        }
        option.int = Some(number);
    } else if let Some(value) = flag_value(argv, &["-s", "--string-value"]) {
        if option.string.is_none() {
            return error(1, format!("Option {path} is an integer option: use -i\n"));
        }
        option.string = Some(value.to_owned());
    } else if has(argv, &["-d", "--default"]) {
        option.int = option.default_int;
        option.string = option.default_string.clone();
    } else {
        return error(1, "Error: one of -i, -s or -d is required\n".into());
    }
    ok(String::new())
}

fn passthru_list(state: &EsxcliState) -> ExecOutput {
    let rows: Vec<Vec<String>> = state
        .passthru
        .iter()
        .map(|(device, enabled)| vec![device.clone(), enabled.to_string()])
        .collect();
    ok(table(&["Device ID", "Enabled"], &rows))
}

fn passthru_set(state: &mut EsxcliState, argv: &[String]) -> ExecOutput {
    let Some(device) = flag_value(argv, &["-d", "--device-id"]) else {
        return error(
            1,
            "Error: Missing required parameter -d|--device-id\n".into(),
        );
    };
    let Some(enabled) = flag_value(argv, &["-e", "--enable"]).and_then(parse_bool) else {
        return error(1, "Error: Missing or bad parameter -e|--enable\n".into());
    };
    let device = device.to_ascii_lowercase();
    let device = if device.len() == 7 {
        format!("0000:{device}")
    } else {
        device
    };
    match state.passthru.get_mut(&device) {
        Some(slot) => {
            *slot = enabled;
            ok(String::new())
        }
        None => error(1, format!("Unable to find PCI device {device}\n")),
    }
}

fn nic_list(host: &SimContext<'_>, state: &EsxcliState) -> ExecOutput {
    let rows: Vec<Vec<String>> = ports(host)
        .into_iter()
        .enumerate()
        .filter(|(_, (adapter, function))| {
            !state
                .passthru
                .get(&adapter.full_pci(*function))
                .copied()
                .unwrap_or(false)
        })
        .map(|(i, (adapter, function))| {
            vec![
                format!("vmnic{i}"),
                adapter.full_pci(function),
                "nmlx5_core".into(),
                "Up".into(),
                "Up".into(),
                adapter.kind.speed.to_string(),
                "Full".into(),
                adapter.port_mac(function),
                "1500".into(),
                adapter.kind.nic_description.into(),
            ]
        })
        .collect();
    ok(table(
        &[
            "Name",
            "PCI Device",
            "Driver",
            "Admin Status",
            "Link Status",
            "Speed",
            "Duplex",
            "MAC Address",
            "MTU",
            "Description",
        ],
        &rows,
    ))
}

#[cfg(test)]
mod tests {
    /// The passthrough contract: what `esxcli` saves is what a guest reads of it.
    #[test]
    fn the_passthrough_settings_read_back_as_the_guests_view() {
        use cairn_runtime::sim::SimTool as _;

        use crate::machine::passthrough::{ESXCLI_SLOT, PassthruSettings};

        assert_eq!(super::Esxcli.name(), ESXCLI_SLOT);
        let mut state = super::EsxcliState::default();
        state.passthru.insert("0000:3b:00.0".into(), true);
        state.passthru.insert("0000:3b:00.1".into(), false);
        let saved = serde_json::to_value(&state).unwrap_or_default();
        let view: PassthruSettings = serde_json::from_value(saved).unwrap_or_default();
        assert_eq!(view.passthru, state.passthru);
    }

    /// The host contract: the maintenance mode `esxcli` saves is what vCenter reads of it.
    #[test]
    fn maintenance_mode_reads_back_as_vcenters_view() {
        use crate::machine::host_vms::HostMaintenance;

        let state = super::EsxcliState {
            maintenance: true,
            ..super::EsxcliState::default()
        };
        let saved = serde_json::to_value(&state).unwrap_or_default();
        let view: HostMaintenance = serde_json::from_value(saved).unwrap_or_default();
        assert!(view.maintenance);
    }

    use std::collections::BTreeMap;
    use std::sync::Arc;

    use cairn_runtime::sim::SimTransport;
    use cairn_runtime::{ExecRequest, Transport};

    fn exec(host: &mut SimTransport, argv: &[impl AsRef<str>]) -> cairn_runtime::ExecOutput {
        host.exec(&ExecRequest::new(argv.iter().map(AsRef::as_ref)))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_output_parses_with_our_parsers() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let model = Arc::new(crate::models::esxi7::esxi7());
        let options = BTreeMap::from([("clock".to_owned(), "virtual".to_owned())]);
        let mut host = SimTransport::new("esx01", dir.path(), model, options)
            .unwrap_or_else(|e| panic!("{e}"));
        let vibs = exec(&mut host, &["esxcli", "software", "vib", "list"]);
        let vibs = crate::esxcli::parse_vib_list(&vibs.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert!(vibs.iter().any(|v| v.name == "nmlx5-core"));
        let install = [
            "esxcli",
            "software",
            "vib",
            "install",
            "-v",
            "/n/mft-4.22.1.11-10EM-703.0.0.18644231.x86_64.vib",
            "-f",
        ];
        let first = exec(&mut host, &install);
        let first =
            crate::esxcli::parse_vib_install(&first.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(first.reboot_required, Some(true));
        assert_eq!(
            first.vibs_installed,
            ["MEL_bootbank_mft_4.22.1.11-10EM-703.0.0.18644231"]
        );
        let again = exec(&mut host, &install);
        let again =
            crate::esxcli::parse_vib_install(&again.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again.reboot_required, Some(false));
        assert_eq!(again.vibs_skipped.len(), 1);
        let params = exec(
            &mut host,
            &crate::esxcli::command::module_parameters("nmlx5_core"),
        );
        let params = crate::esxcli::parse_module_parameters(&params.stdout)
            .unwrap_or_else(|e| panic!("{e}"));
        let set: Vec<_> = params
            .iter()
            .filter(|p| p.value.is_some())
            .map(|p| (p.name.as_str(), p.value.as_deref()))
            .collect();
        assert_eq!(set, [("max_vfs", Some("8,8"))]);
        let nics = exec(&mut host, &["esxcli", "network", "nic", "list"]);
        let nics = crate::esxcli::parse_nic_list(&nics.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(nics.len(), 4);
        assert_eq!(
            nics.get(2).and_then(|n| n.pci_device.as_deref()),
            Some("0000:3b:00.0")
        );
        let passthru = exec(
            &mut host,
            &["esxcli", "hardware", "pci", "pcipassthru", "list"],
        );
        let passthru = crate::esxcli::parse_pcipassthru_list(&passthru.stdout)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(passthru.len(), 4);
        for option in ["/Power/CpuPolicy", "/Net/NetNetqNumaIOCpuPinThreshold"] {
            let text = exec(
                &mut host,
                &[
                    "esxcli", "system", "settings", "advanced", "list", "-o", option,
                ],
            );
            let parsed = crate::esxcli::parse_advanced(&text.stdout)
                .unwrap_or_else(|e| panic!("{e}\n{}", text.stdout));
            assert_eq!(parsed.first().map(|o| o.path.as_str()), Some(option));
        }
        assert_eq!(
            exec(&mut host, &["esxcli", "software", "vib", "remove"]).code,
            1
        );
        // The tools come with the next boot, not before.
        assert_eq!(exec(&mut host, &["mst", "status"]).code, 127);
    }
}
