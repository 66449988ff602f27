//! The simulated bare-metal Linux host (`sim:rhel8-metal`): RHEL 8 on a server with its own
//! ConnectX adapters (by default one dual-port ConnectX-5 VPI at `3b:00.0/1`, both ports
//! Ethernet as shipped), the MFT tools installed on the host (`mst`, `mlxconfig`,
//! `mlxfwmanager`, `flint`, `mlxfwreset`), and the guest model's Linux tools (OFED, `ib`, `net`,
//! perftest, sockperf) over the same cabling options: InfiniBand on bare metal.
//!
//! The adapters, firmware and NV configuration are the ESXi model's
//! ([`crate::machine::esxi`], [`crate::machine::firmware`]); the ports the Linux tools see are
//! the adapters' own ([`crate::machine::metal`]), with the link type in effect now. Options:
//! `adapters`, `fw_version`, `fw_available`, `fault_ignore_staged`, `reset_levels` and the
//! guest's cabling and OFED options except `esxi`, `vcenter`, `vm` and `ports` (the ports are
//! the adapters'); see `docs/simulator.md`.

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{BootMarker, SimContext, SimModel, SimTool};

use crate::machine::esxi::{MFT_MARK, NMST_MARK, parse_adapters};
use crate::machine::guest::{GuestHw, out};
use crate::machine::metal::METAL_MARK;

/// The `rhel8-metal` model: the host's hardware and process table, then the table's rows that
/// run on bare metal (MFT first, then `mlxfwreset`, then the Linux tools), then the everyday
/// commands.
pub(crate) fn rhel8_metal() -> SimModel {
    metal_model("rhel8-metal", MetalHardware, crate::tools::Host::on_metal)
}

/// A bare-metal model named `name`: its `hardware` tool, the process table, the table's rows
/// `runs_here` picks, then the everyday commands.
pub(crate) fn metal_model(
    name: &str,
    hardware: impl SimTool + 'static,
    runs_here: fn(crate::tools::Host) -> bool,
) -> SimModel {
    let model = SimModel::new(name, BootMarker::ProcBootId)
        .with_tool(hardware)
        .with_tool(super::rhel8::Processes);
    crate::tools::TOOLS
        .iter()
        .filter(|tool| runs_here(tool.host))
        .fold(model, |model, tool| (tool.simulate)(model))
        .with_tool(super::linux_commands::LinuxCommands)
}

/// The guest options that also describe a bare-metal host (its cabling, OFED, distribution).
pub(crate) const METAL_OPTIONS: &[&str] = &[
    "adapters",
    "distro",
    "effective_ber",
    "eth_switch",
    "ib_spine",
    "ib_switch",
    "link_downs",
    "link_width",
    "node",
    "ofed",
    "part_number",
    "pfc",
    "rate",
    "roce_ifname",
    "roce_mtu",
    "seed",
    "subnet_manager",
    "switch_mtu",
    "symbol_errors",
    "symbol_errors_per_s",
];

/// The bare-metal host's hardware: `lspci`, `uname`, `/etc/os-release`, the marks that say the
/// host is bare metal with MFT installed, and the hardware summary peers read (in the `guest`
/// slot, as a guest's).
pub(crate) struct MetalHardware;

impl MetalHardware {
    pub(crate) fn publish(host: &mut SimContext<'_>) {
        host.mark(METAL_MARK);
        host.mark(MFT_MARK);
        host.mark(NMST_MARK);
        let hw = GuestHw::of(host);
        let _ = host.save_state(&hw);
    }
}

impl SimTool for MetalHardware {
    fn commands(&self) -> &[&'static str] {
        &["lspci", "uname"]
    }

    fn name(&self) -> &'static str {
        "guest"
    }

    fn options(&self) -> &[&'static str] {
        METAL_OPTIONS
    }

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        if key == "adapters" {
            return parse_adapters(value).map(|_| ());
        }
        super::rhel8::GuestHardware.check_option(key, value)
    }

    fn init(&self, host: &mut SimContext<'_>) {
        Self::publish(host);
        host.write_file(
            "/etc/os-release",
            "NAME=\"Red Hat Enterprise Linux\"\nVERSION=\"8.1 (Ootpa)\"\nID=\"rhel\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"8.1\"\nPRETTY_NAME=\"Red Hat Enterprise Linux 8.1 (Ootpa)\"\n",
        );
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        Self::publish(host);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        Self::publish(host);
        let program = argv
            .first()
            .map_or("", |p| p.rsplit('/').next().unwrap_or(p));
        if program == "uname" {
            return out(0, "4.18.0-147.el8.x86_64\n", "");
        }
        let hw = GuestHw::of(host);
        super::lspci::print(
            &hw,
            argv,
            "00:00.0 Host bridge: Intel Corporation Sky Lake-E DMI3 Registers (rev 04)\n",
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use cairn_runtime::sim::SimHost;

    use super::*;

    fn open(dir: &std::path::Path, options: &[(&str, &str)]) -> Result<SimHost, String> {
        let mut map: BTreeMap<String, String> = options
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        map.insert("clock".into(), "virtual".into());
        SimHost::open("node01", dir.join("node01"), Arc::new(rhel8_metal()), map)
            .map_err(|e| e.to_string())
    }

    use crate::test_support::sim_exec as run;

    fn link_layers(host: &SimHost) -> Vec<String> {
        let text = run(host, &["ibstatus"]).stdout;
        crate::ib::ibstatus::parse(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
            .ports
            .iter()
            .filter_map(|p| p.link_layer.clone())
            .collect()
    }

    /// Bare metal prints `lspci -vv` with the same printer as the guest: its ConnectX
    /// functions' VPD carries the `part_number` option, which the manifest reads.
    #[test]
    fn lspci_vv_on_bare_metal_carries_the_part_number_option() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host =
            open(dir.path(), &[("part_number", "MCX555A-ECAT")]).unwrap_or_else(|e| panic!("{e}"));
        let text = run(&host, &["lspci", "-vv"]).stdout;
        let parsed = crate::lspci::parse_verbose(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let parts: Vec<(String, String)> = crate::lspci::mellanox_part_numbers(&parsed)
            .into_iter()
            .map(|p| (p.address, p.part_number))
            .collect();
        assert_eq!(
            parts,
            [
                ("3b:00.0".to_owned(), "MCX555A-ECAT".to_owned()),
                ("3b:00.1".to_owned(), "MCX555A-ECAT".to_owned())
            ]
        );
        assert_eq!(parsed.devices[1].driver.as_deref(), Some("mlx5_core"));
    }

    #[test]
    fn a_reset_activates_the_staged_link_type_without_a_boot() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = open(dir.path(), &[("ofed", "5.8-1.0.1.1")]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(link_layers(&host), ["Ethernet", "Ethernet"]);
        let set = run(
            &host,
            &["mlxconfig", "-d", "3b:00.0", "-y", "set", "LINK_TYPE_P1=1"],
        );
        assert_eq!(set.code, 0, "{}", set.stderr);
        // Staged: still Ethernet, and mlxfwreset's status says so.
        assert_eq!(link_layers(&host), ["Ethernet", "Ethernet"]);
        let status = run(&host, &["mlxfwreset", "-d", "3b:00.0", "status"]);
        let parsed = crate::mlxfwreset::parse_status(&status.stdout)
            .unwrap_or_else(|e| panic!("{e}\n{}", status.stdout));
        assert_eq!(parsed.pending_nvconfig.len(), 1, "{}", status.stdout);
        let reset = run(
            &host,
            &["mlxfwreset", "-d", "3b:00.0", "-y", "reset", "--level", "3"],
        );
        assert_eq!(reset.code, 0, "{}", reset.stdout);
        assert!(reset.stdout.contains("-I- FW was loaded successfully."));
        assert_eq!(link_layers(&host), ["InfiniBand", "Ethernet"]);
        let boots = host.boots().unwrap_or_default().len();
        assert_eq!(boots, 1, "a reset is not a boot");
        let query = run(&host, &["mlxconfig", "-d", "3b:00.0", "-e", "query"]).stdout;
        let line = query
            .lines()
            .find(|l| l.contains("LINK_TYPE_P1"))
            .unwrap_or_default();
        assert_eq!(
            line.split_whitespace().collect::<Vec<_>>(),
            ["LINK_TYPE_P1", "IB(1)", "IB(1)", "IB(1)"],
            "{query}"
        );
        let status = run(&host, &["mlxfwreset", "-d", "3b:00.0", "status"]);
        assert!(
            status.stdout.contains("No action required"),
            "{}",
            status.stdout
        );
    }

    #[test]
    fn a_reset_runs_the_flashed_image_and_the_rdma_tools_print_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = open(
            dir.path(),
            &[("ofed", "5.8-1.0.1.1"), ("fw_available", "16.35.2000")],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let burn = run(
            &host,
            &["mlxfwmanager", "-d", "3b:00.0", "--online", "-u", "-y"],
        );
        assert_eq!(burn.code, 0, "{}", burn.stdout);
        let flint = run(&host, &["flint", "-d", "3b:00.0", "query"]).stdout;
        let parsed = crate::flint::parse_query(&flint).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (
                parsed.fw_version.as_deref(),
                parsed.fw_version_running.as_deref()
            ),
            (Some("16.35.2000"), Some("16.32.1010"))
        );
        assert!(
            run(&host, &["ibstat"])
                .stdout
                .contains("Firmware version: 16.32.1010")
        );
        let reset = run(
            &host,
            &["mlxfwreset", "-d", "3b:00.0", "-y", "reset", "--level", "3"],
        );
        assert_eq!(reset.code, 0, "{}", reset.stdout);
        assert!(
            run(&host, &["ibstat"])
                .stdout
                .contains("Firmware version: 16.35.2000")
        );
        let flint = run(&host, &["flint", "-d", "3b:00.0", "query"]).stdout;
        let parsed = crate::flint::parse_query(&flint).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.fw_version_running, None, "{flint}");
    }

    #[test]
    fn an_unsupported_level_is_refused_with_the_tools_words() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let host = open(dir.path(), &[("reset_levels", "4")]).unwrap_or_else(|e| panic!("{e}"));
        let reset = run(
            &host,
            &["mlxfwreset", "-d", "3b:00.0", "-y", "reset", "--level", "3"],
        );
        assert_eq!(reset.code, 1);
        assert_eq!(
            reset.stdout,
            "-E- Reset-level '3' is not supported in the current state of this device.\n"
        );
        let none = open(&dir.path().join("b"), &[("reset_levels", "none")])
            .unwrap_or_else(|e| panic!("{e}"));
        let query = run(&none, &["mlxfwreset", "-d", "3b:00.0", "query"]);
        assert_eq!(query.stdout, "-E- There is no supported reset-level.\n");
    }

    #[test]
    fn unknown_or_bad_options_are_refused_and_esxi_has_no_mlxfwreset() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let unknown = open(dir.path(), &[("esxi", "esx01")])
            .err()
            .unwrap_or_default();
        assert!(unknown.contains("esxi"), "{unknown}");
        let bad = open(&dir.path().join("b"), &[("reset_levels", "2")])
            .err()
            .unwrap_or_default();
        assert!(bad.contains("reset levels among 0, 1, 3 and 4"), "{bad}");
        let adapters = open(&dir.path().join("c"), &[("adapters", "cx9@3b")])
            .err()
            .unwrap_or_default();
        assert!(adapters.contains("unknown adapter kind"), "{adapters}");
        let esxi = SimHost::open(
            "esx01",
            dir.path().join("esx01"),
            Arc::new(crate::models::esxi7::esxi7()),
            BTreeMap::from([("preset".to_owned(), "passthrough".to_owned())]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let reset = run(
            &esxi,
            &[
                "/opt/mellanox/bin/mlxfwreset",
                "-d",
                "mt4119_pciconf1",
                "query",
            ],
        );
        assert_eq!(reset.code, 127, "{}", reset.stderr);
    }
}
