//! `lspci [-vv|-vvv] [-s BDF]` on the simulated GPU server: its PCIe tree
//! ([`crate::machine::gpu_server`]) in address order, each function as a published H100
//! server's `lspci -vvv` prints it (the `lspci-vv` fixture `h100-pex890xx-switch-acs-vvv`): the
//! Intel root ports (`Device 352a`), the Broadcom PEX890xx switch ports, the H100s (`3D
//! controller: NVIDIA Corporation Device 2330`), the ConnectX-7s (`MT2910 Family`) and the
//! BlueField-3 (`MT43244`). With `-vv`, the lines runbooks read: `NUMA node:`, a bridge's `Bus:`
//! and `Express` port type, the `Access Control Services` capability with its `ACSCap:` and
//! `ACSCtl:` flags (pciutils `ls-ecaps.c`: `+`/`-` per bit, the control register as `setpci`
//! left it), a NIC's VPD part number, and the kernel driver.

use cairn_runtime::ExecOutput;

use crate::machine::gpu_server::{Bridge, Device, GpuServerState, Kind, layout};
use crate::machine::guest::out;

/// The ACS flags in register bit order (`PCI_ACS_SV` .. `PCI_ACS_DT`).
const ACS_FLAGS: [&str; 7] = [
    "SrcValid",
    "TransBlk",
    "ReqRedir",
    "CmpltRedir",
    "UpstreamFwd",
    "EgressCtrl",
    "DirectTrans",
];

/// Prints `lspci` for the GPU server whose ACS registers `state` holds.
pub(super) fn print(state: &GpuServerState, argv: &[String]) -> ExecOutput {
    let verbose = argv.iter().any(|a| a.starts_with("-vv"));
    let only = argv
        .iter()
        .position(|a| a == "-s")
        .and_then(|i| argv.get(i + 1))
        .map(|s| s.trim_start_matches("0000:").to_owned());
    let layout = layout();
    let mut blocks: Vec<(String, String)> = layout
        .bridges
        .iter()
        .map(|b| (b.address.clone(), bridge(b, state, verbose)))
        .chain(
            layout
                .gpus
                .iter()
                .chain(&layout.nics)
                .map(|d| (d.address.clone(), endpoint(d, verbose))),
        )
        .filter(|(address, _)| only.as_ref().is_none_or(|o| o == address))
        .collect();
    blocks.sort();
    let text: Vec<String> = blocks.into_iter().map(|(_, block)| block).collect();
    out(0, text.join(if verbose { "\n" } else { "" }), "")
}

/// `SrcValid+ TransBlk- ...` for a register value.
fn acs_flags(value: u16) -> String {
    let flags: Vec<String> = ACS_FLAGS
        .iter()
        .enumerate()
        .map(|(bit, name)| {
            let on = value & (1 << bit) != 0;
            format!("{name}{}", if on { '+' } else { '-' })
        })
        .collect();
    flags.join(" ")
}

fn bridge(bridge: &Bridge, state: &GpuServerState, verbose: bool) -> String {
    let name = if bridge.port_type == "Root Port" {
        "Intel Corporation Device 352a (rev 04)"
    } else {
        "Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)"
    };
    let mut text = format!(
        "{} PCI bridge: {name} (prog-if 00 [Normal decode])\n",
        bridge.address
    );
    if !verbose {
        return text;
    }
    text.push_str(&format!(
        "\tNUMA node: {}\n\tBus: primary={:02x}, secondary={:02x}, subordinate={:02x}, sec-latency=0\n",
        bridge.numa, bridge.primary, bridge.secondary, bridge.subordinate
    ));
    let (express, acs) = match bridge.port_type {
        "Root Port" => (
            "[40] Express (v2) Root Port (Slot-), MSI 00",
            Some((
                "[220 v1]",
                "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-",
            )),
        ),
        "Upstream Port" => ("[68] Express (v2) Upstream Port, MSI 00", None),
        _ => (
            "[68] Express (v2) Downstream Port (Slot+), MSI 00",
            Some((
                "[170 v1]",
                "SrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+",
            )),
        ),
    };
    text.push_str(&format!("\tCapabilities: {express}\n"));
    if let Some((offset, cap)) = acs {
        text.push_str(&format!(
            "\tCapabilities: {offset} Access Control Services\n\t\tACSCap:\t{cap}\n\t\tACSCtl:\t{}\n",
            acs_flags(state.acs_of(&bridge.address))
        ));
    }
    text.push_str("\tKernel driver in use: pcieport\n");
    text
}

fn endpoint(device: &Device, verbose: bool) -> String {
    let (class, name, subsystem) = match device.kind {
        Kind::Gpu => (
            "3D controller",
            "NVIDIA Corporation Device 2330 (rev a1)",
            "NVIDIA Corporation Device 16c1",
        ),
        Kind::ConnectX7 => (
            "Infiniband controller",
            "Mellanox Technologies MT2910 Family [ConnectX-7]",
            "Mellanox Technologies MT2910 Family [ConnectX-7]",
        ),
        Kind::BlueField3 => (
            "Infiniband controller",
            "Mellanox Technologies MT43244 BlueField-3 integrated ConnectX-7 network controller (rev 01)",
            "Mellanox Technologies Device 0051",
        ),
    };
    let mut text = format!("{} {class}: {name}\n", device.address);
    if !verbose {
        return text;
    }
    text.push_str(&format!(
        "\tSubsystem: {subsystem}\n\tNUMA node: {}\n\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n\t\tLnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)\n",
        device.numa
    ));
    if device.kind == Kind::Gpu {
        text.push_str(
            "\tKernel driver in use: nvidia\n\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n",
        );
    } else {
        let part = if device.kind == Kind::ConnectX7 {
            "MCX75310AAS-NEAT"
        } else {
            "900-9D3B6-00CV-AA0"
        };
        text.push_str(&format!(
            "\tCapabilities: [48] Vital Product Data\n\t\tRead-only fields:\n\t\t\t[PN] Part number: {part}\n\t\tEnd\n\tKernel driver in use: mlx5_core\n\tKernel modules: mlx5_core\n"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::machine::gpu_server::{ACS_ENABLED, GpuServerState};

    /// The printed tree reads back with the `lspci -vv` parser: every bridge's buses, and ACS on
    /// exactly where the state has it.
    #[test]
    fn the_printed_tree_parses_with_its_buses_and_acs() {
        let mut state = GpuServerState::default();
        state.acs.insert("17:00.0".into(), ACS_ENABLED);
        let argv = vec!["lspci".to_owned(), "-vvv".to_owned()];
        let text = super::print(&state, &argv).stdout;
        let parsed = crate::lspci::parse_verbose(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let on: Vec<&str> = parsed
            .devices
            .iter()
            .filter(|d| d.acs_control.as_ref().is_some_and(|f| !f.is_empty()))
            .map(|d| d.device.address.as_str())
            .collect();
        assert_eq!(on, ["17:00.0"]);
        let port = parsed
            .devices
            .iter()
            .find(|d| d.device.address == "17:00.0");
        assert_eq!(
            port.and_then(|p| p.acs_control.clone()).unwrap_or_default(),
            ["SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd"]
        );
        assert_eq!(
            port.and_then(|p| p.bridge_buses)
                .map(|b| (b.secondary, b.subordinate)),
            Some((0x18, 0x18))
        );
        let parts = crate::lspci::mellanox_part_numbers(&parsed);
        assert_eq!(parts.len(), 10);
        let short = super::print(&state, &["lspci".to_owned()]).stdout;
        let listed = crate::lspci::parse(&short).unwrap_or_else(|e| panic!("{e}\n{short}"));
        assert_eq!(listed.devices.len(), parsed.devices.len());
    }
}
