//! The simulated ESXi host (`sim:esxi7`), and the vCenter management host that runs
//! `vhpc_toolkit` (`sim:esxi7?role=vcenter`): their tools come from the vendor modules.
//!
//! `sim:esxi7` with no option is the reference guide's host: a ConnectX-4 Lx at 1a:00.0/1 and
//! a ConnectX-5 VPI at 3b:00.0/1, MFT not installed, SR-IOV on in firmware and in the
//! `nmlx5_core` module parameters. Options: `adapters=cx4lx@1a,cx5@3b`, `fw_version`,
//! `fw_available`; `role=vcenter` makes the host the management host, whose
//! `vhpc_toolkit` keeps the simulated vCenter's VMs (`vms=a,b`) (see `docs/simulator.md` and `docs/builtins.md`).

use cairn_runtime::ExecOutput;
use cairn_runtime::sim::{BootMarker, SimContext, SimModel, SimTool};

use crate::esxcli::sim_hardware::{not_found, ports};

/// The `esxi7` model. `esxcli` comes first: its `on_boot` makes the installed VIBs' tools
/// available before the others look.
pub(crate) fn esxi7() -> SimModel {
    SimModel::new("esxi7", BootMarker::VmkSummary)
        .with_tool(EsxiHardware)
        .with_tool(crate::esxcli::Esxcli)
        .with_tool(crate::mst::Mst)
        .with_tool(crate::mlxconfig::Mlxconfig)
        .with_tool(crate::mlxfwmanager::MlxfwmanagerTool)
        .with_tool(crate::flint::Flint)
        .with_tool(crate::vhpc::VhpcToolkit)
}

/// One ConnectX port of an ESXi host, as its guests see it: what the host's `esxi` state slot
/// publishes for the simulated guests (`sim:rhel8?esxi=HOST`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PublishedPort {
    /// `0000:3b:00.0`.
    pub(crate) pci: String,
    /// The adapter's mst device, whose `LINK_TYPE_P<function + 1>` sets the port's type.
    pub(crate) mst: String,
    pub(crate) function: u32,
    /// Whether the port takes InfiniBand; other ports are Ethernet only.
    pub(crate) vpi: bool,
    pub(crate) speed_gbps: u64,
    /// `Mellanox Technologies MT27800 Family [ConnectX-5]`.
    pub(crate) model: String,
}

/// The `esxi` state slot: the host's ConnectX ports, published at creation and every boot so
/// that guests can read them without knowing the host's options.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct PublishedHardware {
    pub(crate) ports: Vec<PublishedPort>,
}

/// The ESXi host's hardware, published for its guests (no command of its own).
pub(crate) struct EsxiHardware;

impl EsxiHardware {
    fn publish(host: &mut SimContext<'_>) {
        let ports = ports(host)
            .into_iter()
            .map(|(adapter, function)| PublishedPort {
                pci: adapter.full_pci(function),
                mst: adapter.mst(),
                function,
                vpi: adapter.kind.vpi,
                speed_gbps: adapter.kind.speed / 1000,
                model: adapter.kind.nic_description.to_owned(),
            })
            .collect();
        let _ = host.save_state(&PublishedHardware { ports });
    }
}

impl SimTool for EsxiHardware {
    fn commands(&self) -> &[&'static str] {
        &[]
    }

    fn name(&self) -> &'static str {
        "esxi"
    }

    fn options(&self) -> &[&'static str] {
        &["preset"]
    }

    fn init(&self, host: &mut SimContext<'_>) {
        Self::publish(host);
    }

    fn on_boot(&self, host: &mut SimContext<'_>) {
        Self::publish(host);
    }

    fn run(&self, host: &mut SimContext<'_>, argv: &[String]) -> ExecOutput {
        let _ = host;
        not_found(argv.first().map_or("", String::as_str))
    }
}
