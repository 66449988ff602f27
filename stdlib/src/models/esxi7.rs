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

use crate::machine::esxi::{PublishedHardware, PublishedPort, not_found};
use crate::machine::host_hardware::ports;

/// The `esxi7` model: the published hardware, then the ESXi rows of the table of tools.
pub(crate) fn esxi7() -> SimModel {
    let model = SimModel::new("esxi7", BootMarker::VmkSummary).with_tool(EsxiHardware);
    crate::tools::TOOLS
        .iter()
        .filter(|tool| tool.host.on_esxi())
        .fold(model, |model, tool| (tool.simulate)(model))
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

    fn check_option(&self, key: &str, value: &str) -> Result<(), String> {
        match (key, value) {
            ("preset", crate::machine::esxi::PRESET_PASSTHROUGH) => Ok(()),
            ("preset", _) => Err("`passthrough`".into()),
            _ => Ok(()),
        }
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

#[cfg(test)]
mod tests {
    /// The passthrough contract: the hardware is published in the slot guests read.
    #[test]
    fn the_hardware_is_published_where_guests_read_it() {
        use cairn_runtime::sim::SimTool as _;

        assert_eq!(
            super::EsxiHardware.name(),
            crate::machine::passthrough::HARDWARE_SLOT
        );
    }

    use std::collections::BTreeMap;
    use std::sync::Arc;

    use cairn_runtime::sim::SimHost;

    /// Opening a host with one option; the error's text when it is refused.
    fn refused(model: cairn_runtime::sim::SimModel, key: &str, value: &str) -> Option<String> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = BTreeMap::from([(key.to_owned(), value.to_owned())]);
        SimHost::open("h01", dir.path().join("h01"), Arc::new(model), options)
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn a_bad_preset_adapter_list_or_guest_option_is_refused_when_the_host_opens() {
        assert_eq!(refused(super::esxi7(), "preset", "passthrough"), None);
        let preset = refused(super::esxi7(), "preset", "configured").unwrap_or_default();
        assert!(
            preset.contains("`preset=configured` is invalid: expected `passthrough`"),
            "{preset}"
        );
        let adapters = refused(super::esxi7(), "adapters", "cx9@3b").unwrap_or_default();
        assert!(
            adapters.contains("unknown adapter kind `cx9`"),
            "{adapters}"
        );
        assert_eq!(
            refused(crate::models::rhel8::rhel8(), "ports", "ib,eth"),
            None
        );
        let ports = refused(crate::models::rhel8::rhel8(), "ports", "ib,roce").unwrap_or_default();
        assert!(ports.contains("`ib` and `eth`"), "{ports}");
        let rate = refused(crate::models::rhel8::rhel8(), "rate", "fast").unwrap_or_default();
        assert!(rate.contains("a speed in Gb/s"), "{rate}");
    }
}
