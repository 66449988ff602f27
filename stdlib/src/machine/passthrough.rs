//! What a simulated guest (`sim:rhel8?esxi=HOST`) gets from its ESXi host: the ConnectX ports
//! that vCenter attached to its VM in DirectPath I/O, each with the link type the adapter's
//! firmware runs now.
//!
//! A port reaches the guest when three things hold, as on a real host: the ESXi host enabled it
//! for passthrough (`esxcli hardware pci pcipassthru set`), vCenter attached it to the VM
//! (`vhpc_toolkit passthru --add`), and the ESXi host is up. Its link layer is the firmware's
//! current `LINK_TYPE_P<n>` (`mlxconfig set` takes effect at the host's next boot). The guest
//! reads both hosts' state read-only, at each command. A device attached to the VM reaches the
//! guest only after the VM's next power-on (`vhpc_toolkit power --vm VM --on`), as on a real
//! host, where a VM's PCI devices are those of its configuration when it was powered on.
//!
//! This is the contract between the tools that own those states and the guest: each owner's
//! state reads back as the view below (a round-trip test beside each owner), so no guest tool
//! imports an ESXi tool.

use serde_json::Value;

use cairn_runtime::sim::SimContext;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::machine::esxi::PublishedHardware;
use crate::machine::guest::{GuestHw, LinkLayer, peer_tools, port_hw};

/// The ESXi host's state slot its hardware is published in ([`PublishedHardware`]).
pub(crate) const HARDWARE_SLOT: &str = "esxi";
/// The ESXi host's `esxcli` state slot, read as [`PassthruSettings`].
pub(crate) const ESXCLI_SLOT: &str = "esxcli";
/// The ESXi host's `mlxconfig` state slot, read as [`FirmwareLinks`].
pub(crate) const MLXCONFIG_SLOT: &str = "mlxconfig";
/// The management host's `vhpc_toolkit` state slot, read as [`VmDevices`].
pub(crate) const VCENTER_SLOT: &str = "vhpc_toolkit";

/// What a guest reads of `esxcli`'s state: passthrough by full PCI address
/// (`esxcli hardware pci pcipassthru set`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct PassthruSettings {
    #[serde(default)]
    pub(crate) passthru: BTreeMap<String, bool>,
}

/// What a guest reads of `mlxconfig`'s state: each adapter's (by mst name) parameters' current
/// values, of which `LINK_TYPE_P<n>` sets port n's link layer (1 InfiniBand, 2 Ethernet).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct FirmwareLinks {
    #[serde(default)]
    pub(crate) devices: BTreeMap<String, BTreeMap<String, CurrentValue>>,
}

/// A firmware parameter's value in effect now (the next boot's is not the guest's concern).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) struct CurrentValue {
    pub(crate) current: u64,
}

/// What a guest reads of vCenter's state: the devices attached to each VM (lower case,
/// `0000:3b:00.0`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct VmDevices {
    #[serde(default)]
    pub(crate) vms: BTreeMap<String, AttachedDevices>,
}

/// One VM's attached devices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct AttachedDevices {
    /// Its configuration: what the next power-on gives the guest.
    #[serde(default)]
    pub(crate) devices: Vec<String>,
    /// What it had at its last power-on: all the guest sees.
    #[serde(default)]
    pub(crate) booted_devices: Vec<String>,
}

/// One port the guest sees, in the VM's device order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PassedPort {
    pub(crate) link_layer: LinkLayer,
    pub(crate) speed_gbps: u64,
    /// `Mellanox Technologies MT27800 Family [ConnectX-5]`.
    pub(crate) model: String,
}

/// The ports `vm` has from `esxi`, with vCenter on the management host `vcenter`. Empty when
/// either host is unknown or down, or nothing is attached.
pub(crate) fn passed_through(
    ctx: &SimContext<'_>,
    esxi: &str,
    vcenter: &str,
    vm: &str,
) -> Vec<PassedPort> {
    let (Some(host), Some(manager)) = (peer_tools(ctx, esxi), peer_tools(ctx, vcenter)) else {
        return Vec::new();
    };
    let slot = |tools: &serde_json::Map<String, Value>, name: &str| {
        tools.get(name).cloned().unwrap_or(Value::Null)
    };
    let hardware: PublishedHardware =
        serde_json::from_value(slot(&host, HARDWARE_SLOT)).unwrap_or_default();
    let esxcli: PassthruSettings =
        serde_json::from_value(slot(&host, ESXCLI_SLOT)).unwrap_or_default();
    let firmware: FirmwareLinks =
        serde_json::from_value(slot(&host, MLXCONFIG_SLOT)).unwrap_or_default();
    let vcenter: VmDevices =
        serde_json::from_value(slot(&manager, VCENTER_SLOT)).unwrap_or_default();
    let Some(attached) = vcenter.vms.get(vm) else {
        return Vec::new();
    };
    let mut devices: Vec<&String> = attached.booted_devices.iter().collect();
    devices.sort();
    devices
        .into_iter()
        .filter_map(|device| {
            let port = hardware.ports.iter().find(|p| &p.pci == device)?;
            if !esxcli.passthru.get(&port.pci).copied().unwrap_or(false) {
                return None;
            }
            let link_type = firmware
                .devices
                .get(&port.mst)
                .and_then(|params| params.get(&format!("LINK_TYPE_P{}", port.function + 1)))
                .map_or(2, |v| v.current);
            let link_layer = if port.vpi && link_type != 2 {
                LinkLayer::InfiniBand
            } else {
                LinkLayer::Ethernet
            };
            Some(PassedPort {
                link_layer,
                speed_gbps: port.speed_gbps,
                model: port.model.clone(),
            })
        })
        .collect()
}

/// A guest's hardware (`sim:rhel8?esxi=HOST`): the guest's from its options, with the ports
/// its VM has from `esxi` now ([`passed_through`]; their rate, unless `rate` is set) instead of
/// those of `ports`.
pub(crate) fn hardware(ctx: &SimContext<'_>, esxi: &str) -> GuestHw {
    let mut hw = GuestHw::from_options(ctx.host_name(), |key| ctx.option(key));
    let vcenter = ctx.option("vcenter").unwrap_or("vcenter");
    let vm = ctx.option("vm").unwrap_or(ctx.host_name());
    let passed = passed_through(ctx, esxi, vcenter, vm);
    if let (None, Some(first)) = (ctx.option("rate"), passed.first()) {
        hw.rate_gbps = u32::try_from(first.speed_gbps).unwrap_or(100);
    }
    hw.ports = passed
        .iter()
        .enumerate()
        .map(|(index, port)| {
            port_hw(
                &hw.host,
                &hw.roce_ifname,
                index,
                port.link_layer,
                &port.model,
            )
        })
        .collect();
    hw
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use cairn_runtime::ExecRequest;
    use cairn_runtime::sim::SimHost;

    use crate::test_support::{INSTALL_TOOLS, TestHost};

    /// The guest `compute-01`, the VM `hpc-vm01` on `esx01`, in the test host's sim folder.
    fn guest(t: &TestHost) -> SimHost {
        let options = BTreeMap::from([
            ("clock".to_owned(), "virtual".to_owned()),
            ("esxi".to_owned(), "esx01".to_owned()),
            ("vm".to_owned(), "hpc-vm01".to_owned()),
            ("ofed".to_owned(), "5.4-3.0.3.0".to_owned()),
        ]);
        SimHost::open(
            "compute-01",
            t.sim_dir("compute-01"),
            Arc::new(crate::models::rhel8::rhel8()),
            options,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `ibdev2netdev` lines of the guest, or its error.
    fn rdma_devices(guest: &SimHost) -> String {
        let output = guest
            .exec(&ExecRequest::new(["ibdev2netdev"]))
            .unwrap_or_else(|e| panic!("{e}"));
        format!("{}{}", output.stdout, output.stderr)
    }

    fn link_layers(guest: &SimHost) -> Vec<String> {
        let output = guest
            .exec(&ExecRequest::new(["ibstat"]))
            .unwrap_or_else(|e| panic!("{e}"));
        if output.code != 0 {
            assert!(output.stderr.starts_with("ibpanic:"), "{}", output.stderr);
            return Vec::new();
        }
        let parsed = crate::ib::ibstat::parse(&output.stdout).unwrap_or_else(|e| panic!("{e}"));
        parsed
            .cas
            .iter()
            .flat_map(|ca| ca.ports.iter().filter_map(|p| p.link_layer.clone()))
            .collect()
    }

    #[test]
    fn the_guest_has_the_ports_its_esxi_host_passes_through_with_their_link_types() {
        let t = TestHost::esxi("").build();
        let vm = guest(&t);
        // A fresh host: both ConnectX-5 ports in Ethernet, nothing passed through.
        assert!(link_layers(&vm).is_empty(), "{}", rdma_devices(&vm));

        // Section 2.3: enable passthrough of both ports and attach them to the VM.
        t.run(INSTALL_TOOLS);
        t.run(
            r#"
            for pci in ["0000:3b:00.0", "0000:3b:00.1"] {
                esxcli::pcipassthru_set(pci, true);
                vhpc::passthru_add("hpc-vm01", pci);
            }
            "#,
        );
        // Attached in vCenter, and the VM off: its guest does not answer until it is on.
        t.run(r#"vhpc::power("hpc-vm01", "off");"#);
        let down = vm.exec(&ExecRequest::new(["ibstat"]));
        assert!(
            matches!(down, Err(cairn_runtime::TransportError::Unreachable { ref reason, .. }) if reason.contains("powered off")),
            "{down:?}"
        );
        let on = t.eval(r#"vhpc::power("hpc-vm01", "on").changed"#);
        assert_eq!(on.to_string(), "true");
        // Powered on, the guest boots first (its `reboot_secs`, 1 s by default), then answers.
        let booting = vm.exec(&ExecRequest::new(["ibstat"]));
        assert!(
            matches!(booting, Err(cairn_runtime::TransportError::Unreachable { ref reason, .. }) if reason.contains("booting after its power-on")),
            "{booting:?}"
        );
        let slept = vm.clock().sleep(
            std::time::Duration::from_secs(1),
            &cairn_runtime::Cancel::default(),
        );
        assert!(slept.is_ok());
        assert_eq!(link_layers(&vm), ["Ethernet", "Ethernet"]);
        let again = t.eval(r#"vhpc::power("hpc-vm01", "on").changed"#);
        assert_eq!(again.to_string(), "false", "already on: nothing to do");

        // Section 2.2.3: port 1 to InfiniBand, which the firmware runs after the next boot.
        t.run(r#"mlxconfig::set("mt4119_pciconf1", #{ LINK_TYPE_P1: 1 });"#);
        assert_eq!(link_layers(&vm), ["Ethernet", "Ethernet"]);
        t.run("reboot_if_pending();");
        assert_eq!(link_layers(&vm), ["InfiniBand", "Ethernet"]);
        assert!(rdma_devices(&vm).contains("mlx5_0 port 1 ==> ib0"));
        assert!(rdma_devices(&vm).contains("mlx5_1 port 1 ==> ens224f1"));

        // Passthrough turned off for port 2: the guest loses mlx5_1.
        t.run(r#"esxcli::pcipassthru_set("0000:3b:00.1", false);"#);
        assert_eq!(link_layers(&vm), ["InfiniBand"]);
    }

    #[test]
    fn a_preset_lab_starts_where_the_guides_guest_half_starts() {
        let t = TestHost::esxi("preset=passthrough").build();
        let manager = SimHost::open(
            "vcenter",
            t.sim_dir("vcenter-2"),
            Arc::new(crate::models::esxi7::esxi7()),
            BTreeMap::from([
                ("clock".to_owned(), "virtual".to_owned()),
                ("role".to_owned(), "vcenter".to_owned()),
                ("vms".to_owned(), "hpc-vm01".to_owned()),
                (
                    "vm_devices".to_owned(),
                    "0000:3B:00.0+0000:3B:00.1".to_owned(),
                ),
            ]),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        drop(manager);
        let options = BTreeMap::from([
            ("clock".to_owned(), "virtual".to_owned()),
            ("esxi".to_owned(), "esx01".to_owned()),
            ("vcenter".to_owned(), "vcenter-2".to_owned()),
            ("vm".to_owned(), "hpc-vm01".to_owned()),
            ("ofed".to_owned(), "5.4-3.0.3.0".to_owned()),
        ]);
        let vm = SimHost::open(
            "compute-01",
            t.sim_dir("compute-01"),
            Arc::new(crate::models::rhel8::rhel8()),
            options,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(link_layers(&vm), ["InfiniBand", "Ethernet"]);
        // The ESXi half of the guide finds nothing to do on such a host.
        t.run("mst::start();");
        let q = t.eval(r#"mlxconfig::query("mt4119_pciconf1").params.LINK_TYPE_P1.current.label"#);
        assert_eq!(q.to_string(), "IB");
        assert!(
            t.commands("esx01")
                .iter()
                .all(|c| c.first().is_none_or(|p| p != "reboot"))
        );
        assert!(!t.reboot_pending());
    }
}
