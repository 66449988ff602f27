//! The simulated ESXi host (`sim:esxi7`), and the vCenter management host that runs
//! `vhpc_toolkit` (`sim:esxi7?role=vcenter`): their tools come from the vendor modules.
//!
//! `sim:esxi7` with no option is the reference guide's host: a ConnectX-4 Lx at 1a:00.0/1 and
//! a ConnectX-5 VPI at 3b:00.0/1, MFT not installed, SR-IOV on in firmware and in the
//! `nmlx5_core` module parameters. Options: `adapters=cx4lx@1a,cx5@3b`, `fw_version`,
//! `fw_available`; `role=vcenter` makes the host the management host, whose
//! `vhpc_toolkit` keeps the simulated vCenter's VMs (`vms=a,b`) (see `docs/simulator.md` and `docs/builtins.md`).

use cairn_runtime::sim::{BootMarker, SimModel};

/// The `esxi7` model. `esxcli` comes first: its `on_boot` makes the installed VIBs' tools
/// available before the others look.
pub(crate) fn esxi7() -> SimModel {
    SimModel::new("esxi7", BootMarker::VmkSummary)
        .with_tool(crate::esxcli::Esxcli)
        .with_tool(crate::mst::Mst)
        .with_tool(crate::mlxconfig::Mlxconfig)
        .with_tool(crate::mlxfwmanager::MlxfwmanagerTool)
        .with_tool(crate::flint::Flint)
        .with_tool(crate::vhpc::VhpcToolkit)
}
