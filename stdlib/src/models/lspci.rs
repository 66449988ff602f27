//! `lspci` as every simulated Linux host prints it (the guest and bare metal): the host's own
//! functions, then one line per ConnectX function in the form pciutils prints (`ADDRESS CLASS:
//! DEVICE`), and with `-vv` (or `-vvv`) each ConnectX function's details that runbooks read:
//! `Subsystem:`, the `Express` capability's `LnkCap:`/`LnkSta:` (pciutils `ls-caps.c`, the `(ok)`
//! marks of pciutils 3.7+), the `Vital Product Data` capability (`ls-vpd.c`: `Product Name:`,
//! `Read-only fields:` with `[PN] Part number`, `[EC]`, `[SN]`, `[V0]`, the `[RV]` checksum,
//! `End`; the part number from the `part_number` option) and the kernel driver. The published
//! blocks it follows are the `lspci-vv` fixtures.

use cairn_runtime::ExecOutput;

use crate::machine::guest::{CONNECTX5, GuestHw, LinkLayer, PortHw, out};

/// Prints `lspci [-vv]` for `hw`, after the host's own functions `host_lines`.
pub(super) fn print(hw: &GuestHw, argv: &[String], host_lines: &str) -> ExecOutput {
    let verbose = argv.iter().any(|a| a.starts_with("-vv"));
    let mut text = String::from(host_lines);
    for port in &hw.ports {
        let class = match port.link_layer {
            LinkLayer::InfiniBand => "Infiniband controller",
            LinkLayer::Ethernet => "Ethernet controller",
        };
        let address = port.pci.trim_start_matches("0000:");
        let model = if port.model.is_empty() {
            CONNECTX5
        } else {
            &port.model
        };
        text.push_str(&format!("{address} {class}: {model}\n"));
        if verbose {
            text.push_str(&details(hw, port));
        }
    }
    out(0, text, "")
}

/// A ConnectX function's `-vv` details.
fn details(hw: &GuestHw, port: &PortHw) -> String {
    let serial = crate::machine::guest::hash(&[&hw.host, &port.pci, "serial"]) % 100_000;
    format!(
        "\tSubsystem: Mellanox Technologies Device 0008\n\
         \tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\
         \t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM not supported\n\
         \t\tLnkSta:\tSpeed 8GT/s (ok), Width x16 (ok)\n\
         \tCapabilities: [48] Vital Product Data\n\
         \t\tProduct Name: CX556A - ConnectX-5 QSFP28\n\
         \t\tRead-only fields:\n\
         \t\t\t[PN] Part number: {}\n\
         \t\t\t[EC] Engineering changes: AC\n\
         \t\t\t[SN] Serial number: MT2047X{serial:05}\n\
         \t\t\t[V0] Vendor specific: PCIeGen3 x16\n\
         \t\t\t[RV] Reserved: checksum good, 2 byte(s) reserved\n\
         \t\tEnd\n\
         \tKernel driver in use: mlx5_core\n\
         \tKernel modules: mlx5_core\n",
        hw.part_number
    )
}
